-- The pages counter of 0014 (page_counts) once per statement instead of once per row.
--
-- Per row, every page written ran an upsert of the same counter row (one stripe per backend), so a
-- statement writing N pages updated that row N times in one transaction: each update leaves a new
-- version of the row that no one may prune before the transaction ends, and the next upsert walks
-- past all of them (the index's entries and the row's update chain). The cost grows with the square
-- of the pages per statement: an ocr.plan storing the text layers of a 2,000-page tender, or the
-- search benchmark's COPY of 100,000 pages (62 s before 0014, 513 s after). Per statement, the pages
-- of one statement are added up first and each (source, stripe) row is updated once.
--
-- The counts mean what they meant: every page inserted or overwritten, by source, with the seconds it
-- took (INSERT … ON CONFLICT DO UPDATE fires both triggers: each sees only the rows it wrote).

DROP TRIGGER pages_count ON pages;
DROP FUNCTION page_count();

CREATE FUNCTION page_count_statement() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO page_counts AS c (source, stripe, pages, seconds_sum, seconds_le)
    SELECT w.source, pg_backend_pid() % 16, count(*), sum(w.seconds),
           ARRAY(SELECT count(x.seconds) FILTER (WHERE x.seconds <= b.bound)
                   FROM unnest(page_seconds_bounds()) WITH ORDINALITY AS b(bound, n)
                   LEFT JOIN written_pages x ON x.source = w.source
                  GROUP BY b.n ORDER BY b.n)
      FROM written_pages w
     GROUP BY w.source
    ON CONFLICT (source, stripe) DO UPDATE
       SET pages = c.pages + excluded.pages, seconds_sum = c.seconds_sum + excluded.seconds_sum,
           seconds_le = ARRAY(SELECT t.a + t.b FROM unnest(c.seconds_le, excluded.seconds_le) WITH ORDINALITY
                                  AS t(a, b, n) ORDER BY t.n);
    RETURN NULL;
END $$;

-- PostgreSQL allows transition tables on a trigger of one event only: one trigger per event.
CREATE TRIGGER pages_count_inserted AFTER INSERT ON pages
    REFERENCING NEW TABLE AS written_pages
    FOR EACH STATEMENT EXECUTE FUNCTION page_count_statement();
CREATE TRIGGER pages_count_updated AFTER UPDATE ON pages
    REFERENCING NEW TABLE AS written_pages
    FOR EACH STATEMENT EXECUTE FUNCTION page_count_statement();
