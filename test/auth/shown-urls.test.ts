import { bearerJwt } from '../../src/auth';
import { ConfigError } from '../../src/policy';
import { listen } from '../helpers/listen';
import { expectNoUrlSecret, presigned } from '../helpers/presigned-url';

// SPEC 9.4 for the key set: a JWKS URL or a metadata's jwks_uri that carries credentials is
// fetched whole and shown bare in the start-up check's errors and warnings.

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  jest.restoreAllMocks();
  for (const close of closers.splice(0)) await close();
});

test('a presigned jwks URL that answers 404: the strict start-up error shows it without its credentials', async () => {
  const provider = await listen((_req, res) => {
    res.statusCode = 404;
    res.end();
  });
  closers.push(provider.close);
  const error = await bearerJwt({ issuer: 'https://issuer.example', jwks: presigned(`${provider.url}/jwks.json`), algorithms: ['ES256'], audience: 'api', strict: true })
    .ready()
    .catch((thrown: unknown) => thrown);
  expect(error).toBeInstanceOf(ConfigError);
  expect((error as Error).message).toContain(`${provider.url}/jwks.json answered 404, not 200`);
  expectNoUrlSecret((error as Error).message);
});

test("a jwks_uri with a token in its query, from the issuer's metadata: the warning shows it without the token", async () => {
  const warnings: string[] = [];
  jest.spyOn(process, 'emitWarning').mockImplementation((warning: string | Error) => void warnings.push(typeof warning === 'string' ? warning : warning.message));
  let base = '';
  const provider = await listen((req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.url === '/.well-known/openid-configuration') {
      res.end(JSON.stringify({ issuer: base, jwks_uri: presigned(`${base}/keys`), id_token_signing_alg_values_supported: ['ES256'] }));
    } else {
      res.statusCode = 500;
      res.end('{}');
    }
  });
  closers.push(provider.close);
  base = provider.url;
  await bearerJwt({ issuerBaseURL: base, audience: 'api' }).ready();
  expect(warnings.join('\n')).toContain(`${base}/keys answered 500, not 200`);
  expectNoUrlSecret(warnings.join('\n'));
});
