import { entry, runScript } from '../helpers/node-script';
import { StatusCollector } from '../helpers/status-collector';

// The reporter's timer and its reports hold nothing, so that a process with a reporter running
// exits when its work is done, even while the service hangs; a process that awaits flush() or
// close() on its way out still sees its report delivered.

jest.setTimeout(60_000);

let collector: StatusCollector;
beforeEach(async () => {
  collector = new StatusCollector();
  await collector.start();
});
afterEach(() => collector.stop());

test.each([
  ['answering', false],
  ['hanging', true],
])('a process with a reporter running exits on its own (service %s)', async (_name, hang) => {
  collector.hang = hang;
  // After the first report (answered, or timed out) the reporter waits for its next: an hour's
  // heartbeat, or the retry after the timeout. Neither may hold the process.
  const run = runScript(`import { createStatusReporter } from ${entry('fleet')};
    const reporter = createStatusReporter({ url: ${JSON.stringify(collector.url())}, intervalSeconds: 3600, timeoutMs: 500 });
    await reporter.flush();
    console.log('first report', reporter.status().reported === 1 ? 'accepted' : 'timed out');`);
  expect(await run.exited).toMatchObject({ code: 0, stdout: `first report ${hang ? 'timed out' : 'accepted'}\n` });
});

test.each(['flush', 'close'])('await reporter.%s() keeps the process alive until the service has answered', async (method) => {
  collector.delayMs = 300;
  const run = runScript(`import { createStatusReporter } from ${entry('fleet')};
    const reporter = createStatusReporter({ url: ${JSON.stringify(collector.url())}, labels: { last: 'words' } });
    await reporter.${method}();
    console.log('reported', reporter.status().reported);
    await reporter.close();`);
  const { code, stdout } = await run.exited;
  expect({ code, stdout }).toEqual({ code: 0, stdout: 'reported 1\n' });
  expect(collector.reports.map((report) => (report.body.labels as Record<string, string>).last)).toEqual(['words']);
});
