import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as otel from '@opentelemetry/api';
import type { OtelApi } from '../../src/telemetry/optional-api';

// svcgate types the part of @opentelemetry/api it calls itself, so that no declaration it ships
// names the optional package. This file does not compile when the real API stops fitting them.

test('the real @opentelemetry/api fits the types svcgate calls it through', () => {
  const api: OtelApi = otel;
  // The no-op meter svcgate compares a provider's meter with is the API's one instance.
  expect(api.createNoopMeter()).toBe(otel.metrics.getMeterProvider().getMeter('svcgate'));
  expect(api.SpanStatusCode.ERROR).toBe(otel.SpanStatusCode.ERROR);
});

test('no shipped declaration imports from @opentelemetry (uses dist/: npm run build:ts first)', () => {
  const declarations = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? declarations(join(dir, entry.name)) : entry.name.endsWith('.d.ts') ? [join(dir, entry.name)] : []));
  const naming = declarations(join(__dirname, '../../dist/cjs')).filter((file) => /(from |import\(|require\(|types=)["']@opentelemetry/.test(readFileSync(file, 'utf8')));
  expect(naming).toEqual([]);
});
