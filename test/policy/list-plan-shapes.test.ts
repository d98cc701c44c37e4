import fc from 'fast-check';
import { buildInput, compileAcl, Evaluator, RequestValidationError, type ListSpec, type VerifiedPayload } from '../../src/policy';
import { matches } from '../../src/list';
import { bearerApi } from '../helpers/bearer-api';

/**
 * The plan's promise for an item with several owned parameters of every scalar type and place: a
 * label-style integer path parameter, a string query parameter bound through a nested claim, a
 * boolean header and a number bound through a claim named with brackets. A row (one value per
 * parameter, as the handler reads the item request) is in the plan exactly when the item request
 * for it is allowed with the same token, for random roles and claims of every shape.
 */
const ITEM = '/shops/{shopId}/items';
const api = bearerApi({
  '/catalogue': { get: { 'x-acl-list': { item: ITEM } } },
  [ITEM]: {
    parameters: [{ name: 'shopId', in: 'path', required: true, style: 'label', schema: { type: 'integer' }, 'x-acl-binding': 'shops' }],
    get: {
      parameters: [
        { name: 'tenant', in: 'query', required: true, schema: { type: 'string' }, 'x-acl-binding': 'org.tenants' },
        { name: 'x-open', in: 'header', required: true, schema: { type: 'boolean' }, 'x-acl-binding': 'open' },
        { name: 'rating', in: 'query', required: true, schema: { type: 'number' }, 'x-acl-binding': '["https://example.com/ratings"]' },
      ],
    },
  },
}, 'shapes', { openapi: '3.1.0', scheme: 'bearer' });
const ACL = {
  anonymous: {},
  owner: { [ITEM]: { 'read:own': ['*'] } },
  admin: { [ITEM]: { 'read:any': ['*'] } },
  heir: { $extend: ['owner'] },
  guest: {},
};

type Row = { shopId: number; tenant: string; 'x-open': boolean; rating: number };
const FIELDS = { shopId: 'shopId', tenant: 'tenant', 'x-open': 'x-open', rating: 'rating' };

const shopIds = [7, 1, 9007199254740992];
const tenants = ['a', '07', 'é,b'];
const ratings = [1.5, 1e21, 0.1];
const rowArb = fc.record({ shopId: fc.constantFrom(...shopIds), tenant: fc.constantFrom(...tenants), 'x-open': fc.boolean(), rating: fc.constantFrom(...ratings) });

/** A claim of the shapes the decision reads: the parameter's own values (as numbers, text, padded text), junk, lists of them, or nothing. */
const claimOf = (values: readonly unknown[]) => {
  const one = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...values) },
    { weight: 2, arbitrary: fc.constantFrom(...values).map(String) },
    { weight: 1, arbitrary: fc.constantFrom(...values).map((value) => (typeof value === 'number' ? `00${value}` : ` ${String(value)}`)) },
    { weight: 1, arbitrary: fc.constantFrom<unknown>('x', '', null, true, 9007199254740993, '9007199254740993', { a: 1 }, [1]) },
  );
  const mostly = fc.tuple(fc.shuffledSubarray([...values], { minLength: 1 }), fc.array(one, { maxLength: 3 })).map(([some, more]) => [...some, ...more]);
  return fc.oneof({ weight: 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: one }, { weight: 2, arbitrary: fc.array(one, { maxLength: 5 }) }, { weight: 6, arbitrary: mostly });
};
const roleArb = fc.oneof(fc.constantFrom('owner', 'owner', 'owner', 'owner', 'admin', 'heir', 'heir', 'guest', 'nobody', 3), fc.constant(['guest', 'owner']), fc.constant(['owner', 'owner']), fc.constant(undefined));

test('a plan over four owned parameters of every place and type holds exactly the rows the item decision allows', () => {
  const data = compileAcl({ openapi: api, acl: ACL });
  const evaluator = Evaluator.createSync(data, { decisionCacheSize: 0 });
  const list = data.operations['GET /catalogue']!;
  const item = data.operations[`GET ${ITEM}`]!;
  const seen = { shown: 0, hidden: 0 };
  expect(Object.keys((list.list as ListSpec).params).sort()).toEqual(['header:x-open', 'path:shopId', 'query:rating', 'query:tenant']);
  fc.assert(
    fc.property(roleArb, claimOf(shopIds), claimOf(tenants), claimOf([true, false]), claimOf(ratings), fc.array(rowArb, { minLength: 1, maxLength: 6 }), (role, shops, tenantClaim, open, rating, rows) => {
      const payload: VerifiedPayload = {};
      if (role !== undefined) payload.role = role;
      if (shops !== undefined) payload.shops = shops;
      if (tenantClaim !== undefined) payload.org = { tenants: tenantClaim };
      if (open !== undefined) payload.open = open;
      if (rating !== undefined) payload['https://example.com/ratings'] = rating;
      const plan = evaluator.evaluate(buildInput('GET /catalogue', list, {}, payload));
      expect(plan.allow).toBe(plan.list!.kind !== 'none');
      for (const row of rows as Row[]) {
        const request = { pathParams: { shopId: `.${row.shopId}` }, query: new URLSearchParams({ tenant: row.tenant, rating: String(row.rating) }), headers: { 'x-open': String(row['x-open']) } };
        let allowed: boolean;
        try {
          allowed = evaluator.evaluate(buildInput(`GET ${ITEM}`, item, request, payload)).allow;
        } catch (error) {
          if (!(error instanceof RequestValidationError)) throw error;
          allowed = false;
        }
        expect(plan.list!.kind === 'none' ? false : matches(plan.list!, row, FIELDS)).toBe(allowed);
        if (plan.list!.kind === 'some') seen[allowed ? 'shown' : 'hidden']++;
      }
    }),
    { numRuns: 500 },
  );
  // Not vacuous: some plans both showed rows and hid others.
  expect(seen.shown).toBeGreaterThan(20);
  expect(seen.hidden).toBeGreaterThan(20);
});

test('a value of 1,024 characters, the longest a claim holds, is read from the item request in label and matrix style too', () => {
  // The limit is the value's: the style's prefix (`.`, `;code=`) is not part of it, or the plan would show a row
  // whose item request is refused with 400.
  const doc = {
    ...api,
    paths: {
      '/labels': { get: { 'x-acl-list': { item: '/labels/{code}' } } },
      '/labels/{code}': { get: { parameters: [{ name: 'code', in: 'path', required: true, style: 'label', schema: { type: 'string' }, 'x-acl-binding': 'codes' }] } },
      '/marks': { get: { 'x-acl-list': { item: '/marks/{code}' } } },
      '/marks/{code}': { get: { parameters: [{ name: 'code', in: 'path', required: true, style: 'matrix', schema: { type: 'string' }, 'x-acl-binding': 'codes' }] } },
    },
  };
  const data = compileAcl({ openapi: doc, acl: { anonymous: {}, owner: { '/labels/{code}': { 'read:own': ['*'] }, '/marks/{code}': { 'read:own': ['*'] } } } });
  const evaluator = Evaluator.createSync(data);
  const code = 'c'.repeat(1024);
  const payload = { role: 'owner', codes: [code, `${code}x`] };
  for (const [list, item, raw] of [
    ['GET /labels', 'GET /labels/{code}', `.${code}`],
    ['GET /marks', 'GET /marks/{code}', `;code=${code}`],
  ] as const) {
    expect(evaluator.evaluate(buildInput(list, data.operations[list]!, {}, payload)).list).toEqual({ kind: 'some', anyOf: [{ code: [code] }], attributes: ['*'] });
    expect(evaluator.evaluate(buildInput(item, data.operations[item]!, { pathParams: { code: raw } }, payload)).allow).toBe(true);
    // One character more is refused on both sides.
    expect(() => buildInput(item, data.operations[item]!, { pathParams: { code: `${raw}x` } }, payload)).toThrow(RequestValidationError);
  }
});
