-- tplan result database, schema version 3 (PRAGMA user_version), marked
-- as tplan's by PRAGMA application_id = 0x74706c6e ("tpln"). Compiled into
-- the binary; applied to new files, checked on existing ones. Column names
-- of `plans` are the Lua plan table's keys and the CSV header (DESIGN.md).

-- One row per sweep a script ran (or per merge of shards). A sweep row is
-- written, and committed, before its plans; `completed` turns 1 in the
-- same transaction as its last plans, so a run killed mid-write leaves a
-- row that says it did not complete.
CREATE TABLE sweeps (
    id             INTEGER PRIMARY KEY,
    name           TEXT NOT NULL,
    script         TEXT,              -- path as given to tplan run
    script_sha256  TEXT,              -- of the script's bytes
    args           TEXT,              -- the script's arguments, space-joined
    engine_version TEXT NOT NULL,
    sweep_key      TEXT NOT NULL,     -- SHA-256 of what defines the space and
                                      -- its ranking: shards of one sweep share it
    ordinal        INTEGER NOT NULL,  -- the sweep's number within its script run
    shard          INTEGER NOT NULL DEFAULT 0,
    shards         INTEGER NOT NULL DEFAULT 1,
    rank_by        TEXT NOT NULL,     -- objectives, comma-separated, in order
    keep           TEXT NOT NULL,     -- a number, 'fits' or 'all'
    axes           TEXT,              -- the inputs the sweep varied (axes of
                                      -- two or more values), comma-separated,
                                      -- in the spec's order (schema 3; NULL
                                      -- in older rows)
    fits_first     INTEGER,           -- 1: plans that fit rank first; 0: the
                                      -- script mixed them (fits_first =
                                      -- false); NULL in older rows, which
                                      -- mixed them
    space          INTEGER NOT NULL,  -- configurations in the space
    visited        INTEGER,
    invalid        INTEGER,
    evaluated      INTEGER,
    passed         INTEGER,
    kept           INTEGER,           -- plans written with a rank
    started_at     TEXT NOT NULL,     -- UTC, ISO 8601
    finished_at    TEXT,
    completed      INTEGER NOT NULL DEFAULT 0,
    interrupted    INTEGER NOT NULL DEFAULT 0
);

-- One row per kept plan: rank 1 is the best; Pareto-front plans outside
-- the kept ones have rank NULL and pareto = 1, and so do the plans of a
-- streamed sweep (keep = "fits"/"all" past its `ranked`, db/stream.h)
-- after its best ones, stored as its threads handed them over. key1..key4 are the ranking
-- keys as the engine compares them (smaller is better), so shards merge
-- and re-rank exactly.
--
-- The comments give each column's storage class as the writer stores it
-- (NULL where a value is absent: a budget not given, a key not used).
-- The columns declare no type and no NOT NULL on purpose: without type
-- affinity and constraint checks SQLite encodes a row ~15% faster
-- (bench_store, 1M rows on tmpfs, median of 6 runs: 543k against 464k
-- rows/s), and only tplan writes these rows. What it costs a query: text
-- is not converted for comparison, so write gpus = 8, not gpus = '8'.
-- Files made with the typed columns of earlier builds read and write the
-- same (the columns and their names are the contract, DESIGN.md).
-- CREATE TABLE plans (sweep_id, rank, config_index, pareto, score,
--                     key1, key2, key3, key4, <one column per plan field>)
-- is made by db/store.c from the field table (engine/fields.c, listed by
-- `tplan fields`), in the table's order, before this file runs: every
-- writer, reader and front end names the same columns. Schema 1 files
-- (before inputs became columns) gain the new columns at their end when
-- a writer opens them; readers see NULL for a column a file lacks.

-- Rows arrive in rank order (a streamed sweep's: ranks or NULL, in the
-- order of its walk), so this index grows near its end: the writer stays
-- fast. (sweep_id, config_index) is unique by construction.
CREATE INDEX plans_by_rank ON plans (sweep_id, rank);
CREATE INDEX sweeps_by_name ON sweeps (name);

-- The ten best plans of every sweep, with the sweep's name.
CREATE VIEW best_plans AS
    SELECT s.name AS sweep, p.*
    FROM plans p JOIN sweeps s ON s.id = p.sweep_id
    WHERE p.rank IS NOT NULL AND p.rank <= 10;
