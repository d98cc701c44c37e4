import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { metrics } from '@opentelemetry/api';
import { TELEMETRY_CHANNELS } from '../../src/auth';
import { ATTRIBUTES } from '../../src/telemetry/attribute-names';
import { instruments } from '../../src/telemetry/instruments';
import { openTelemetry, type OtelMeter } from '../../src/telemetry/optional-api';

// Every metric instrument svcgate makes, every attribute it sets and every diagnostics channel it
// publishes on is written down: in docs/telemetry.md's tables (with the instrument's kind and
// unit) and in the README's Telemetry section. A new one (the shadow's metric and channel were)
// that is not documented fails here. The instruments are those svcgate asks a meter for.
const ROOT = join(__dirname, '../..');
const GUIDE = readFileSync(join(ROOT, 'docs/telemetry.md'), 'utf8');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const README_TELEMETRY = README.slice(README.indexOf('## Telemetry'), README.indexOf('\n## ', README.indexOf('## Telemetry') + 1));

interface Made {
  name: string;
  kind: 'counter' | 'histogram' | 'observable gauge';
  unit: string | undefined;
}

/** The instruments svcgate creates on a meter that only writes down what it was asked for. */
function madeInstruments(): Made[] {
  const made: Made[] = [];
  const ask = (kind: Made['kind']) => (name: string, options?: { unit?: string }) => {
    made.push({ name, kind, unit: options?.unit });
    return { add: () => undefined, record: () => undefined, addCallback: () => undefined };
  };
  const meter = { createCounter: ask('counter'), createHistogram: ask('histogram'), createObservableGauge: ask('observable gauge') } as unknown as OtelMeter;
  metrics.setGlobalMeterProvider({ getMeter: () => meter } as never);
  try {
    const api = openTelemetry();
    if (api === null) throw new Error('@opentelemetry/api did not load');
    instruments(api);
  } finally {
    metrics.disable();
  }
  return made;
}

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

test('docs/telemetry.md lists every instrument with its kind and unit, and the README names each', () => {
  const made = madeInstruments();
  expect(made.map(({ name }) => name)).toContain('svcgate.shadow.comparisons');
  const missing = made.filter(({ name, kind, unit }) => !new RegExp(`^\\| \`${escaped(name)}\` \\| ${kind} \\| \`${escaped(unit ?? '')}\` \\|`, 'm').test(GUIDE));
  expect(missing).toEqual([]);
  expect(made.filter(({ name }) => !README_TELEMETRY.includes(`| \`${name}\` (`))).toEqual([]);
});

test('docs/telemetry.md names every attribute', () => {
  expect(Object.values(ATTRIBUTES).filter((name) => !GUIDE.includes(`\`${name}\``))).toEqual([]);
});

test('docs/telemetry.md describes every diagnostics channel, and the README names each', () => {
  const channels = Object.values(TELEMETRY_CHANNELS);
  expect(channels).toContain('svcgate:shadow');
  expect(channels.filter((name) => !GUIDE.includes(`| \`${name}\` | \`{ `))).toEqual([]);
  expect(channels.filter((name) => !README_TELEMETRY.includes(`\`${name}\``))).toEqual([]);
});
