"""What the tests share and bench/ reuses: servers, PDF builders, harnesses and the schema dump."""
