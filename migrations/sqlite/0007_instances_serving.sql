-- When each instance last served writes (its clock trusted, its storage up): an instance that
-- refused writes credits the refused time only if no other one served meanwhile (SPEC 7, 12).
ALTER TABLE instances ADD COLUMN serving_ms BIGINT;
