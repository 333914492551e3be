-- People at the keyboard (docs/security.md): who may sign in and as what, the sessions
-- and personal tokens they carry, the orgs' sign-in settings, sign-ins under way, and
-- the audit log with its hash chain. Tokens, like keys, are stored as SHA-256 hashes.

-- role: what a signed-in user may do; login: the identity they sign in as (an OpenID
-- claim's value, their email by default, or a password login), unique in the org
-- without regard to case; password_hash: Argon2id's encoded form (belay user
-- set-password, POST /api/v1/me/password), never written by provisioning.
ALTER TABLE app_user ADD COLUMN role text NOT NULL DEFAULT 'responder'
                       CHECK (role IN ('admin', 'responder', 'viewer')),
                     ADD COLUMN login text,
                     ADD COLUMN password_hash text;
CREATE UNIQUE INDEX app_user_login ON app_user (org_id, lower(login)) WHERE login IS NOT NULL;

-- A provisioned key's name and scope; a plain-string key has no name and is an admin key.
ALTER TABLE api_key ADD COLUMN name text,
                    ADD COLUMN scope text NOT NULL DEFAULT 'admin'
                      CHECK (scope IN ('admin', 'responder', 'read'));
CREATE UNIQUE INDEX api_key_name ON api_key (org_id, name) WHERE name IS NOT NULL;

-- An org's sign-in settings: "auth" in provisioning. client_secret is sealed like a
-- channel's secrets (docs/guarantees.md#no-key-at-rest-in-clear).
CREATE TABLE org_auth (
  org_id             bigint PRIMARY KEY REFERENCES org (id) ON DELETE CASCADE,
  password           boolean NOT NULL DEFAULT true,
  oidc_issuer        text NOT NULL DEFAULT '',
  oidc_client_id     text NOT NULL DEFAULT '',
  oidc_client_secret text NOT NULL DEFAULT '',
  oidc_scopes        text NOT NULL DEFAULT 'openid email profile',
  oidc_claim         text NOT NULL DEFAULT 'email'
);
COMMENT ON COLUMN org_auth.oidc_client_secret IS
  'sealed:v1:<key id>:<base64url(nonce, ciphertext, tag)> under the data encryption key, or clear without one';

-- A signed-in browser. expires_at slides with use (last_seen_at + --session-hours) up to
-- absolute_expires_at (7 days after created_at). role and login are the user's when the
-- session began: provisioning ends the sessions whose user's role or login changed, and
-- a removed user's go with the user.
CREATE TABLE session (
  id                  bigserial PRIMARY KEY,
  org_id              bigint NOT NULL,
  user_name           text NOT NULL,
  token_hash          text NOT NULL UNIQUE,
  role                text NOT NULL,
  login               text NOT NULL,
  via                 text NOT NULL CHECK (via IN ('oidc', 'password')),
  source_ip           text NOT NULL DEFAULT '',
  created_at          timestamptz NOT NULL,
  last_seen_at        timestamptz NOT NULL,
  expires_at          timestamptz NOT NULL,
  absolute_expires_at timestamptz NOT NULL,
  FOREIGN KEY (org_id, user_name) REFERENCES app_user (org_id, name) ON DELETE CASCADE
);
CREATE INDEX session_by_user ON session (org_id, user_name);
CREATE INDEX session_expiry ON session (expires_at);

-- A user's own API token (POST /api/v1/me/tokens): shown once, at most their role; it
-- acts with the lesser of its scope and the user's role at the time of each request.
CREATE TABLE personal_token (
  id         bigserial PRIMARY KEY,
  org_id     bigint NOT NULL,
  user_name  text NOT NULL,
  name       text NOT NULL,
  token_hash text NOT NULL UNIQUE,
  scope      text NOT NULL CHECK (scope IN ('admin', 'responder', 'read')),
  created_at timestamptz NOT NULL,
  FOREIGN KEY (org_id, user_name) REFERENCES app_user (org_id, name) ON DELETE CASCADE,
  UNIQUE (org_id, user_name, name)
);

-- An OpenID sign-in under way, from the redirect to the provider until its callback
-- (10 minutes at most), taken once: a replayed state finds nothing. browser_hash binds it
-- to the browser that began it (a cookie); the PKCE verifier and the nonce are derived
-- from that cookie and the state, so nothing secret rests here.
CREATE TABLE oidc_login (
  state_hash   text PRIMARY KEY,
  org_id       bigint NOT NULL REFERENCES org (id) ON DELETE CASCADE,
  browser_hash text NOT NULL,
  next_path    text NOT NULL,
  expires_at   timestamptz NOT NULL
);

-- The audit log: append-only, one row per write a person or key made and per sign-in
-- (docs/security.md#audit-log). ids are gapless, handed out under the lock of
-- audit_head's row, in the transaction of the change each row records; each row's hash
-- is sha256 of the previous row's hash and its own fields (protocol/audit.hpp), and
-- `belay audit verify` recomputes the chain. changes is json, not jsonb: its text is
-- kept byte for byte, as it was hashed.
CREATE TABLE audit (
  id          bigint PRIMARY KEY,
  at          timestamptz NOT NULL,
  org_id      bigint,
  actor       text NOT NULL,
  via         text NOT NULL,
  source_ip   text NOT NULL DEFAULT '',
  action      text NOT NULL,
  object_kind text NOT NULL DEFAULT '',
  object_name text NOT NULL DEFAULT '',
  changes     json NOT NULL,
  prev_hash   text NOT NULL,
  hash        text NOT NULL
);
CREATE INDEX audit_by_org ON audit (org_id, id DESC);

-- The chain's ends: the newest row (last_id, last_hash) and what the oldest kept row
-- follows (first_id, first_prev_hash; retention moves them).
CREATE TABLE audit_head (
  id              int PRIMARY KEY CHECK (id = 1),
  last_id         bigint NOT NULL,
  last_hash       text NOT NULL,
  first_id        bigint NOT NULL,
  first_prev_hash text NOT NULL
);
INSERT INTO audit_head VALUES (1, 0, repeat('0', 64), 1, repeat('0', 64));
