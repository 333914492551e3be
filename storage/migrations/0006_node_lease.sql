-- A lease per node (docs/architecture.md#ownership), renewed every third of its length. While a
-- node's lease holds, the incidents it owns stay its own, however old their own leases
-- (incident.lease_expires_at, taken when the node opened or adopted them); once it
-- lapses, another node takes them over and deletes the row, which tells the first node,
-- should it come back, that its incidents moved. One row per node instead of renewing
-- every incident's lease: holding 100,000 incidents costs one small update per renewal.
CREATE TABLE node_lease (
  node       text PRIMARY KEY,
  expires_at timestamptz NOT NULL
);
