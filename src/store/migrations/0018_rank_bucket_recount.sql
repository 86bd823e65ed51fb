-- Recounts every rank bucket from its entries. Before this release a score that moved up inside a full bucket was
-- counted twice when its +1 split the bucket (the split's recount already held the -1 still to come; see
-- src/store/rank-buckets.ts), so a bucket could count fewer entries than it holds and ranks after it were off.
UPDATE runtime_rank_buckets b
SET n = (SELECT count(*) FROM runtime_entries e
         WHERE e.board_id = b.board_id AND e.ord >= b.lower AND (b.upper IS NULL OR e.ord < b.upper))
WHERE b.n <> (SELECT count(*) FROM runtime_entries e
              WHERE e.board_id = b.board_id AND e.ord >= b.lower AND (b.upper IS NULL OR e.ord < b.upper));
