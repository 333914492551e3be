// Two OpenID providers on 127.0.0.1 for belay's sign-in tests (docs/security.md#oidc):
//
//  - a real one: npm's oidc-provider (the certified implementation), signing RS256 ID
//    tokens, for the client "belay" whose redirect URIs POST /configure gives
//    ({"redirectUris":[…]}: belay's port is known only once it listens). Its sign-in page
//    is replaced by one that signs in whoever POST /next-login named last
//    ({"sub","email","email_verified"}), and consents for them; with --interactive,
//    oidc-provider's own development pages ask a person (a browser), whose login is
//    their email.
//  - a rogue one, serving discovery, a JWKS (one ES256 key), an authorization endpoint
//    that answers at once, and a token endpoint whose ID token has the defect POST
//    /defect named last: good, other_key, unknown_kid, other_aud, other_iss, expired,
//    wrong_nonce, no_nonce, alg_none, hs256. It checks PKCE (S256) and the client's
//    secret as a provider must, so a sign-in that gets a token sent both.
//
// Prints one line of JSON once both listen: {"issuer","rogue"}. Runs until killed.
//   node provider.mjs [--client-secret S] [--interactive]
import * as http from 'node:http';
import { createHash, randomBytes } from 'node:crypto';
import Provider from 'oidc-provider';
import * as jose from 'jose';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const clientId = 'belay';
const clientSecret = option('--client-secret', 'the-test-client-secret');
const interactive = args.includes('--interactive');

function readBody(req) {
  return new Promise((resolve) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => resolve(body));
  });
}
function listen(server) {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));
}
function answer(res, status, body, type = 'application/json') {
  res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store' });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
}

// --- the real provider -----------------------------------------------------------
let nextLogin = { sub: 'nobody', email: 'nobody@example.com', email_verified: true };
const accounts = new Map();

async function realProvider() {
  const server = http.createServer();
  const port = await listen(server);
  const issuer = `http://127.0.0.1:${port}`;
  const { privateKey } = await jose.generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await jose.exportJWK(privateKey)), kid: 'real-1', alg: 'RS256', use: 'sig' };
  let provider = null;
  let callback = null;
  const configure = (redirectUris) => {
    provider = new Provider(issuer, {
      clients: [{
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      }],
      jwks: { keys: [jwk] },
      claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
      // The claims of the scopes in the ID token itself, as most providers put them.
      conformIdTokenClaims: false,
      features: { devInteractions: { enabled: interactive } },
      async findAccount(ctx, sub) {
        const claims = accounts.get(sub) ?? { sub, email: sub, email_verified: true };
        return { accountId: sub, claims: async () => claims };
      },
      ...(interactive ? {} : { interactions: { url: (ctx, i) => `/interaction/${i.uid}` } }),
    });
    callback = provider.callback();
  };
  server.on('request', async (req, res) => {
    try {
      if (req.method === 'POST' && req.url === '/configure') {
        configure(JSON.parse(await readBody(req)).redirectUris);
        return answer(res, 200, { ok: true });
      }
      if (req.method === 'POST' && req.url === '/next-login') {
        nextLogin = JSON.parse(await readBody(req));
        return answer(res, 200, { ok: true });
      }
      if (!provider) return answer(res, 503, { error: 'not configured: POST /configure' });
      if (!interactive && req.url.startsWith('/interaction/')) {
        const details = await provider.interactionDetails(req, res);
        const account = nextLogin;
        accounts.set(account.sub, account);
        const grant = new provider.Grant({ accountId: account.sub, clientId: details.params.client_id });
        grant.addOIDCScope(details.params.scope);
        const grantId = await grant.save();
        return await provider.interactionFinished(req, res,
          { login: { accountId: account.sub }, consent: { grantId } },
          { mergeWithLastSubmission: false });
      }
      return callback(req, res);
    } catch (e) {
      answer(res, 500, { error: String(e) });
    }
  });
  return issuer;
}

// --- the rogue provider ----------------------------------------------------------
let defect = 'good';
const pending = new Map(); // code -> {nonce, challenge, redirectUri}

async function rogueProvider() {
  const server = http.createServer();
  const port = await listen(server);
  const issuer = `http://127.0.0.1:${port}`;
  const published = await jose.generateKeyPair('ES256', { extractable: true });
  const unpublished = await jose.generateKeyPair('ES256', { extractable: true });
  const jwks = { keys: [{ ...(await jose.exportJWK(published.publicKey)), kid: 'rogue-1', alg: 'ES256', use: 'sig' }] };
  const b64url = (buf) => Buffer.from(buf).toString('base64url');

  async function idToken(claims) {
    const now = Math.floor(Date.now() / 1000);
    const base = { iss: issuer, aud: clientId, iat: now, exp: now + 300, ...claims };
    const sign = (key, kid, payload) =>
      new jose.SignJWT(payload).setProtectedHeader({ alg: 'ES256', kid }).sign(key);
    switch (defect) {
      case 'other_key': return sign(unpublished.privateKey, 'rogue-1', base);
      case 'unknown_kid': return sign(unpublished.privateKey, 'rogue-2', base);
      case 'other_aud': return sign(published.privateKey, 'rogue-1', { ...base, aud: 'someone-else' });
      case 'other_iss': return sign(published.privateKey, 'rogue-1', { ...base, iss: 'http://evil.example' });
      case 'expired': return sign(published.privateKey, 'rogue-1', { ...base, iat: now - 7200, exp: now - 3600 });
      case 'wrong_nonce': return sign(published.privateKey, 'rogue-1', { ...base, nonce: 'not-this-sign-in' });
      case 'no_nonce': { const { nonce, ...rest } = base; void nonce; return sign(published.privateKey, 'rogue-1', rest); }
      case 'alg_none': return `${b64url(JSON.stringify({ alg: 'none', kid: 'rogue-1' }))}.${b64url(JSON.stringify(base))}.`;
      case 'hs256':
        return new jose.SignJWT(base).setProtectedHeader({ alg: 'HS256', kid: 'rogue-1' })
          .sign(new TextEncoder().encode(clientSecret));
      default: return sign(published.privateKey, 'rogue-1', base);
    }
  }

  server.on('request', async (req, res) => {
    const url = new URL(req.url, issuer);
    if (req.method === 'POST' && url.pathname === '/defect') {
      defect = JSON.parse(await readBody(req)).defect;
      return answer(res, 200, { ok: true });
    }
    if (url.pathname === '/.well-known/openid-configuration') {
      return answer(res, 200, {
        issuer, authorization_endpoint: `${issuer}/authorize`, token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`, response_types_supported: ['code'],
        subject_types_supported: ['public'], id_token_signing_alg_values_supported: ['ES256'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['client_secret_basic'],
      });
    }
    if (url.pathname === '/jwks') return answer(res, 200, jwks);
    if (url.pathname === '/authorize') {
      const q = url.searchParams;
      if (q.get('client_id') !== clientId || q.get('code_challenge_method') !== 'S256' || !q.get('code_challenge'))
        return answer(res, 400, { error: 'invalid_request' });
      const code = randomBytes(16).toString('hex');
      pending.set(code, { nonce: q.get('nonce'), challenge: q.get('code_challenge'), redirectUri: q.get('redirect_uri') });
      const back = new URL(q.get('redirect_uri'));
      back.searchParams.set('code', code);
      back.searchParams.set('state', q.get('state'));
      res.writeHead(303, { Location: back.toString() });
      return res.end();
    }
    if (req.method === 'POST' && url.pathname === '/token') {
      const form = new URLSearchParams(await readBody(req));
      const basic = `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`;
      if (req.headers.authorization !== basic) return answer(res, 401, { error: 'invalid_client' });
      const p = pending.get(form.get('code'));
      pending.delete(form.get('code'));
      const verifier = form.get('code_verifier') ?? '';
      if (!p || p.redirectUri !== form.get('redirect_uri') ||
          createHash('sha256').update(verifier).digest('base64url') !== p.challenge)
        return answer(res, 400, { error: 'invalid_grant' });
      return answer(res, 200, {
        access_token: randomBytes(16).toString('hex'), token_type: 'Bearer', expires_in: 60,
        id_token: await idToken({ sub: nextLogin.sub, email: nextLogin.email,
                                  email_verified: nextLogin.email_verified, nonce: p.nonce }),
      });
    }
    answer(res, 404, { error: 'not_found' });
  });
  return issuer;
}

const issuer = await realProvider();
const rogue = await rogueProvider();
process.stdout.write(`${JSON.stringify({ issuer, rogue })}\n`);
