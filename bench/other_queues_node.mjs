// The no-op drain with the Node.js peers (graphile-worker, pg-boss), driven by other_queues.py.
//
//   node other_queues_node.mjs LIBRARY enqueue URL JOBS          install the schema, enqueue JOBS no-ops
//   node other_queues_node.mjs LIBRARY work URL OPTIONS_JSON     run one worker until SIGTERM
//
// The libraries are imported from BENCH_PEERS_NODE_MODULES (the directory other_queues.py installs
// them into). Each command writes JSON lines on stdout: {"event": "enqueued"}, then for a worker
// {"event": "ready"}, {"event": "first_start", "t": ...} at its handler's first call (seconds of
// CLOCK_MONOTONIC, the clock Python's time.monotonic() reads) and {"event": "calls", "n": ...}
// (handler calls) when it stops.

import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [library, command, url, argument] = process.argv.slice(2);
const modules = process.env.BENCH_PEERS_NODE_MODULES;
const ENQUEUE_BATCH = 1000;

function say(event) {
  process.stdout.write(JSON.stringify(event) + "\n");
}

async function load(name, entry) {
  return import(pathToFileURL(join(modules, name, entry)).href);
}

const options = () => (command === "work" ? JSON.parse(argument) : { poolSize: 4 });
const monotonic = () => Number(process.hrtime.bigint()) / 1e9;
let calls = 0;
function noteCall(count) {
  if (calls === 0) say({ event: "first_start", t: monotonic() });
  calls += count;
}

function stopOn(signal, stop) {
  process.once(signal, async () => {
    try {
      await stop();
    } finally {
      say({ event: "calls", n: calls });
      process.exit(0);
    }
  });
}

async function graphileWorker() {
  const { makeWorkerUtils, run } = await load("graphile-worker", "dist/index.js");
  if (command === "enqueue") {
    const utils = await makeWorkerUtils({ connectionString: url });
    await utils.migrate();
    const jobs = Number(argument);
    for (let start = 0; start < jobs; start += ENQUEUE_BATCH) {
      const size = Math.min(ENQUEUE_BATCH, jobs - start);
      await utils.addJobs(Array.from({ length: size }, () => ({ identifier: "noop", payload: {} })));
    }
    await utils.release();
    say({ event: "enqueued" });
    return;
  }
  const { concurrency, maxPoolSize, localQueueSize, completeJobBatchDelay } = options();
  const runner = await run({
    connectionString: url,
    concurrency,
    maxPoolSize,
    noHandleSignals: true,
    pollInterval: 1000,
    taskList: { noop: async () => noteCall(1) },
    preset: {
      worker: {
        localQueue: { size: localQueueSize },
        completeJobBatchDelay,
        failJobBatchDelay: completeJobBatchDelay,
      },
    },
  });
  stopOn("SIGTERM", () => runner.stop());
  say({ event: "ready" });
}

async function pgBoss() {
  const { PgBoss } = await load("pg-boss", "dist/index.js");
  const boss = new PgBoss({ connectionString: url, max: options().poolSize });
  boss.on("error", (error) => process.stderr.write(`pg-boss: ${error}\n`));
  await boss.start();
  if (command === "enqueue") {
    await boss.createQueue("noop");
    const jobs = Number(argument);
    for (let start = 0; start < jobs; start += ENQUEUE_BATCH) {
      const size = Math.min(ENQUEUE_BATCH, jobs - start);
      await boss.insert("noop", Array.from({ length: size }, () => ({ data: {} })));
    }
    await boss.stop({ graceful: false });
    say({ event: "enqueued" });
    return;
  }
  await boss.work(
    "noop",
    {
      batchSize: options().batchSize,
      localConcurrency: options().localConcurrency,
      pollingIntervalSeconds: 0.5,
      burstWhenBatchFull: true,
    },
    async (jobs) => noteCall(jobs.length),
  );
  stopOn("SIGTERM", () => boss.stop({ graceful: true, timeout: 10000 }));
  say({ event: "ready" });
}

const libraries = { "graphile-worker": graphileWorker, "pg-boss": pgBoss };
libraries[library]().catch((error) => {
  process.stderr.write(`${library} ${command}: ${error?.stack ?? error}\n`);
  process.exit(1);
});
