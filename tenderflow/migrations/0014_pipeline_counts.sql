-- Counters of the pipeline's work for /metrics, built like job_outcome_counts (0013): written by
-- triggers in the transaction that writes the row they count, striped by backend, summed by readers.

-- The pipeline's: pages written (a batch run again counts again: it was read again), by source,
-- with the seconds each took to read (text layer or render + OCR).
CREATE FUNCTION page_seconds_bounds() RETURNS double precision[] LANGUAGE sql IMMUTABLE
    AS $$ SELECT '{0.05,0.25,0.5,1,2,4,8,15,30,60,120}'::double precision[] $$;

CREATE TABLE page_counts (
    source      text             NOT NULL,
    stripe      smallint         NOT NULL,
    pages       bigint           NOT NULL,
    seconds_sum double precision NOT NULL,
    seconds_le  bigint[]         NOT NULL,  -- pages whose seconds <= each page_seconds_bounds() bound
    PRIMARY KEY (source, stripe)
);

CREATE FUNCTION page_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO page_counts AS c (source, stripe, pages, seconds_sum, seconds_le)
    VALUES (NEW.source, pg_backend_pid() % 16, 1, NEW.seconds,
            ARRAY(SELECT (NEW.seconds <= b.bound)::int::bigint
                    FROM unnest(page_seconds_bounds()) WITH ORDINALITY AS b(bound, n) ORDER BY b.n))
    ON CONFLICT (source, stripe) DO UPDATE
       SET pages = c.pages + 1, seconds_sum = c.seconds_sum + excluded.seconds_sum,
           seconds_le = ARRAY(SELECT t.a + t.b FROM unnest(c.seconds_le, excluded.seconds_le) WITH ORDINALITY
                                  AS t(a, b, n) ORDER BY t.n);
    RETURN NULL;
END $$;

CREATE TRIGGER pages_count AFTER INSERT OR UPDATE ON pages FOR EACH ROW EXECUTE FUNCTION page_count();

-- LLM tokens the provider reported, per extraction written (a rerun spent them again), by backend
-- and model ('' for none: the offline extractor reports 0 tokens).
CREATE TABLE llm_token_counts (
    backend           text     NOT NULL,
    model             text     NOT NULL,
    stripe            smallint NOT NULL,
    extractions       bigint   NOT NULL,
    prompt_tokens     bigint   NOT NULL,
    completion_tokens bigint   NOT NULL,
    PRIMARY KEY (backend, model, stripe)
);

CREATE FUNCTION llm_token_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO llm_token_counts AS c (backend, model, stripe, extractions, prompt_tokens, completion_tokens)
    VALUES (NEW.backend, coalesce(NEW.model, ''), pg_backend_pid() % 16, 1, NEW.prompt_tokens, NEW.completion_tokens)
    ON CONFLICT (backend, model, stripe) DO UPDATE
       SET extractions = c.extractions + 1, prompt_tokens = c.prompt_tokens + excluded.prompt_tokens,
           completion_tokens = c.completion_tokens + excluded.completion_tokens;
    RETURN NULL;
END $$;

CREATE TRIGGER extractions_count_tokens AFTER INSERT OR UPDATE ON extractions FOR EACH ROW
    EXECUTE FUNCTION llm_token_count();
