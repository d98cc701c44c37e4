import { LogCollector } from '../helpers/log-collector';
import { entry, runScript } from '../helpers/node-script';

// The uploader's own uploads hold no socket or timer, so that they never keep a process alive. A
// process that awaits `uploader.close()` on its way out must still see its last events delivered:
// without the hold, the process ended at the await (exit code 13) before the collector answered.

jest.setTimeout(60_000);

let collector: LogCollector;
beforeEach(async () => {
  collector = new LogCollector();
  collector.delayMs = 300;
  await collector.start();
});
afterEach(() => collector.stop());

test.each(['close', 'flush'])('await uploader.%s() keeps the process alive until the collector has answered', async (method) => {
  const run = runScript(`import { createDecisionLogUploader } from ${entry('fleet')};
    const uploader = createDecisionLogUploader({ url: ${JSON.stringify(collector.url)} });
    uploader.log({ decision_id: 'last-words', result: { allow: false } });
    await uploader.${method}();
    console.log('uploaded', uploader.status().uploaded);
    await uploader.close();`);
  const { code, stdout } = await run.exited;
  expect({ code, stdout }).toEqual({ code: 0, stdout: 'uploaded 1\n' });
  expect(collector.events.map((event) => event.decision_id)).toEqual(['last-words']);
});
