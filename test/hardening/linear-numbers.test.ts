import type { RequestListener } from 'node:http';
import request from 'supertest';
import { z } from 'zod';
import { bearerJwt, bearerJwtAcl } from '../../src/auth';
import { serializeBodyValue, serializeRequestValue, type ParamSpec, type SchemaType } from '../../src/policy';
import { canonicalInteger, canonicalNumber } from '../../src/policy/request/canonical-number';
import { svcAcl, SvcApi, SvcContainer } from '../../src/svc';
import { alternatingMedians } from '../helpers/alternating-medians';
import { listen } from '../helpers/listen';
import { HS256 } from '../helpers/tokens';
import { bearerApi, getWithPathParam } from '../helpers/bearer-api';

// Finding 5 and SPEC 7.3: reading an owned number costs time linear in its length, and values
// over the 1,024-character limit are refused before they are read. No token is needed to reach
// this step, so it is a denial-of-service surface. Costs are compared as ratios between a small
// and a large input on the same machine, never against a wall-clock threshold: a linear reader
// costs about 64 times more for a 64 times longer input, a quadratic one about 4,096 times more.

const KIB = 1024;
const digitsThenX = (length: number) => `${'1'.repeat(length - 1)}x`;

/** Linear costs about 64 times more; quadratic about 4,096 times. */
const LINEAR_BOUND = 1000;

/** The fastest of `runs` calls of `work`, in milliseconds, after one call to warm it up: pauses only ever add time. */
function leastCost(work: () => unknown, runs: number): number {
  work();
  let least = Infinity;
  for (let run = 0; run < runs; run++) {
    const start = performance.now();
    work();
    least = Math.min(least, performance.now() - start);
  }
  return least;
}

/** How many times more a call costs on the large input than on the small one; each call runs `repeat` times. */
function costRatio(read: (text: string) => unknown, small: string, large: string): number {
  const repeat = (text: string, times: number) => () => {
    for (let i = 0; i < times; i++) read(text);
  };
  // Equal total lengths per sample, so both samples are long enough to time.
  const times = Math.ceil(large.length / small.length);
  return (leastCost(repeat(large, 1), 15) / leastCost(repeat(small, times), 15)) * times;
}

describe('the number scanner is linear in the length of its input', () => {
  test.each([
    ['a number with a bad last character', canonicalNumber, digitsThenX],
    ['a number that is all digits', canonicalNumber, (length: number) => '1'.repeat(length)],
    ['a number with a long fraction and a bad exponent', canonicalNumber, (length: number) => `1.${'0'.repeat(length - 4)}e+`],
    ['an integer with a bad last character', canonicalInteger, digitsThenX],
    ['an integer that is all digits', canonicalInteger, (length: number) => '1'.repeat(length)],
  ])('%s: 64 KiB costs under 1,000 times 1 KiB', (_name, read, input) => {
    expect(costRatio(read, input(KIB), input(64 * KIB))).toBeLessThan(LINEAR_BOUND);
  });

  test("the finding's inputs are read to the end and refused", () => {
    expect(canonicalNumber(digitsThenX(95_000))).toBeNull();
    expect(canonicalNumber(digitsThenX(15_000))).toBeNull();
    expect(canonicalInteger(digitsThenX(95_000))).toBeNull();
  });
});

describe('through the public API, values over 1,024 characters are refused before they are read', () => {
  const param = (type: SchemaType, location: ParamSpec['in']): ParamSpec => ({ name: 'id', in: location, style: location === 'body' ? 'form' : 'simple', explode: false, type, items: null, binding: 'id', owned: true });

  test.each([
    ['a path number', (text: string) => serializeRequestValue(param('number', 'path'), text)],
    ['a path integer', (text: string) => serializeRequestValue(param('integer', 'path'), text)],
    ['a body number given as text', (text: string) => serializeBodyValue(param('number', 'body'), text)],
  ])('%s: 64 KiB costs under 1,000 times 1 KiB, and the finding inputs are invalid', (_name, read) => {
    expect(costRatio(read, digitsThenX(KIB), digitsThenX(64 * KIB))).toBeLessThan(LINEAR_BOUND);
    expect(read(digitsThenX(95_000))).toEqual([null]);
    expect(read(digitsThenX(15_000))).toEqual([null]);
  });
});

describe("the finding's requests, with no token", () => {
  test('bearerJwtAcl: GET /prices/<15,000 digits>x costs about what the same length costs for a string, and the route does not run', async () => {
    const ran: string[] = [];
    const express = require('express') as () => { use: (...args: unknown[]) => void };
    const app = express();
    const openapi = bearerApi({ '/prices/{price}': getWithPathParam('price', 'number'), '/notes/{note}': getWithPathParam('note', 'string') }, 'prices');
    const acl = { anonymous: {}, user: { '/prices/{price}': { 'read:own': ['*'] }, '/notes/{note}': { 'read:own': ['*'] } } };
    app.use(bearerJwtAcl({ openapi, handler: bearerJwt(HS256), acl: { bearerAuth: acl } }));
    app.use((req: { path: string }, res: { json: (body: unknown) => void }) => {
      ran.push(req.path);
      res.json({});
    });
    const { url, close } = await listen(app as unknown as RequestListener);
    try {
      const price = await request(url).get(`/prices/${digitsThenX(15_000)}`);
      expect(price.status).toBeGreaterThanOrEqual(400);
      expect(price.status).toBeLessThan(500);
      const [number, string] = await alternatingMedians(() => request(url).get(`/prices/${digitsThenX(15_000)}`), () => request(url).get(`/notes/${digitsThenX(15_000)}`), 7);
      expect(number / string).toBeLessThan(10);
      expect(ran).toEqual([]);
    } finally {
      await close();
    }
  });

  test('svcAcl: a body {"invoiceId": "<95,000 digits>x"} costs about what the same bytes cost in a field nobody owns, and the method does not run', async () => {
    const ran: unknown[] = [];
    class InvoiceService {
      static schemas = { createInvoice: z.object({ invoiceId: z.number(), memo: z.string().optional() }) };
      createInvoice(invoice: unknown) {
        ran.push(invoice);
        return invoice;
      }
    }
    const guard = svcAcl({ handler: bearerJwt(HS256), acl: { anonymous: {}, clerk: { '/api/invoice-service/create-invoice': { 'create:own': ['*'] } } }, owners: { 'invoiceService.createInvoice': { invoiceId: 'invoices' } } });
    const server = await new SvcApi().interceptAll(guard).from(new SvcContainer().ofLocal(InvoiceService)).listen(0);
    const { port } = server.address() as { port: number };
    const url = `http://127.0.0.1:${port}`;
    try {
      const owned = () => request(url).post('/api/invoice-service/create-invoice').send({ invoiceId: digitsThenX(95_000) });
      const memo = () => request(url).post('/api/invoice-service/create-invoice').send({ invoiceId: 1, memo: digitsThenX(95_000) });
      const response = await owned();
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(response.status).toBeLessThan(500);
      const [ownedCost, memoCost] = await alternatingMedians(owned, memo, 7);
      expect(ownedCost / memoCost).toBeLessThan(10);
      expect(ran).toEqual([]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
