-- Issue 20: account hygiene and declared accepts. `retired_ms`: when the owner retired the bot
-- (NULL: active; a retired bot plays no new sets, keeps its name and history). `accepts`: the
-- bot's declared ranges as JSON (`{"sizes": [min, max], ...}`, NULL: the contract's limits);
-- `max_concurrent_sets`: how many sets it plays at once (NULL: no declared limit).
ALTER TABLE bots ADD COLUMN retired_ms BIGINT;
ALTER TABLE bots ADD COLUMN accepts TEXT;
ALTER TABLE bots ADD COLUMN max_concurrent_sets BIGINT;
