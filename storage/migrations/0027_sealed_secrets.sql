-- Secrets at rest (docs/guarantees.md#no-key-at-rest-in-clear). The secret columns keep
-- their type: a value is either in clear (a node without --data-encryption-key-file, and
-- every value written before this migration) or "sealed:v1:<key id>:<base64url>", AES-256-GCM
-- under the data encryption key, which the database never sees. SQL cannot seal: the
-- first start with a key seals every clear value (storage/stored_secrets.cpp), and
-- `belay rekey` rewrites every value under the current key.
COMMENT ON COLUMN channel.url IS
  'sealed:v1:<key id>:<base64url(nonce, ciphertext, tag)> under the data encryption key, or clear without one';
COMMENT ON COLUMN channel.secret IS
  'sealed:v1:<key id>:<base64url(nonce, ciphertext, tag)> under the data encryption key, or clear without one';
COMMENT ON COLUMN channel.signing_secret IS
  'sealed:v1:<key id>:<base64url(nonce, ciphertext, tag)> under the data encryption key, or clear without one';
COMMENT ON COLUMN signing_secret.secret IS
  'the answer-link signing secret: sealed under the data encryption key at the first start with one';
