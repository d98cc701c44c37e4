import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import * as root from '../../src';
import * as auth from '../../src/auth';
import * as fleet from '../../src/fleet';
import * as policy from '../../src/policy';
import * as svc from '../../src/svc';
import * as testing from '../../src/testing';

// Every public entry point whose functions can throw ConfigError exports it, as one class, so that
// `import { ConfigError, bearerJwt } from 'svcgate/auth'` is enough for an `instanceof` check.
const ROOT = join(__dirname, '../..');

class Orders {
  list(): string[] {
    return [];
  }
}

/** For each entry point, a call with a bad option that throws (or rejects with) a ConfigError. */
const badCalls: Record<string, () => unknown> = {
  svcgate: () => root.compileAcl({ openapi: 42, acl: {} }),
  'svcgate/policy': () => policy.compileAcl({ openapi: 42, acl: {} }),
  'svcgate/auth': () => auth.bearerJwt({ secret: 'x'.repeat(32), audience: 'api', algoritms: ['HS256'], algorithms: ['HS384'] }),
  'svcgate/svc': () => new svc.SvcContainer().ofLocal(Orders, { routes: 'no' as unknown as boolean }),
  'svcgate/fleet': () => fleet.remoteOpa({ url: 'ftp://opa.example.com' }),
  'svcgate/testing': () => testing.createTestIssuer({ alg: 'none' as unknown as 'HS256' }),
};
const entryPoints = { svcgate: root, 'svcgate/policy': policy, 'svcgate/auth': auth, 'svcgate/svc': svc, 'svcgate/fleet': fleet, 'svcgate/testing': testing };

async function thrownBy(call: () => unknown): Promise<unknown> {
  try {
    await call();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe.each(Object.entries(entryPoints))('%s', (name, exports) => {
  test('exports ConfigError, the same class as every other entry point', () => {
    expect(exports.ConfigError).toBe(policy.ConfigError);
  });

  test('a bad option throws an instance of the ConfigError it exports', async () => {
    const error = await thrownBy(badCalls[name]!);
    expect(error).toBeInstanceOf(exports.ConfigError);
    expect((error as InstanceType<typeof exports.ConfigError>).code).toBe('ERR_SVCGATE_CONFIG');
  });
});

// The built package, as users load it (`npm run build:ts` first): the ESM entry points wrap the
// CommonJS ones, so `import` and `require` see one ConfigError class.
test('the built entry points export one ConfigError, from require and from import', () => {
  const names = Object.keys(entryPoints);
  const script = `
import { createRequire } from 'node:module';
const require = createRequire(${JSON.stringify(join(ROOT, 'package.json'))});
const names = ${JSON.stringify(names)};
const classes = [];
for (const name of names) classes.push(require(name).ConfigError, (await import(name)).ConfigError);
console.log(JSON.stringify({ defined: classes.every((cls) => typeof cls === 'function' && cls.name === 'ConfigError'), distinct: new Set(classes).size }));
`;
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' });
  expect(JSON.parse(output)).toEqual({ defined: true, distinct: 1 });
});
