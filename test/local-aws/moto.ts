/**
 * moto's server (from PyPI): one local endpoint that answers the SQS, Firehose, S3 and KMS APIs
 * as the AWS SDK calls them, for the tests that hold this service's AWS adapters and Lambda
 * bundles to those APIs. moto, pinned, is installed on first use into the git-ignored
 * `.venv-moto/` (as test/schemathesis/run.sh installs Schemathesis) and reused after.
 *
 * A machine that cannot have it (no python3-venv, no PyPI) says so with
 * `ATTRIBUTION_TEST_NO_MOTO=1`: the suites that need it then print what they did not run.
 * Without that variable, a moto that cannot be installed or started fails the suite.
 */

import { type ChildProcess, execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdir, rm, stat } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { CreateDeliveryStreamCommand, type FirehoseClient } from "@aws-sdk/client-firehose";
import { CreateBucketCommand, type S3Client } from "@aws-sdk/client-s3";
import type { Message } from "@aws-sdk/client-sqs";
import type { SQSEvent } from "aws-lambda";

const run = promisify(execFile);

export const MOTO_VERSION = "5.2.5";
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
/**
 * The git-ignored `.venv-moto/`, or, where `ATTRIBUTION_VENV_HOME` names a folder (CI keeps one
 * between runs, as Maven keeps its repository), a virtualenv there of this version's own.
 */
const VENV = process.env.ATTRIBUTION_VENV_HOME
  ? join(process.env.ATTRIBUTION_VENV_HOME, `moto-${MOTO_VERSION}`)
  : join(ROOT, ".venv-moto");
const SERVER = join(VENV, "bin", "moto_server");
const PYTHON = join(VENV, "bin", "python");
/** Held while one test file installs, so files run side by side install once. */
const LOCK = `${VENV}.lock`;

/** Credentials moto accepts (any); never real ones. */
export const MOTO_CREDENTIALS = { accessKeyId: "testing", secretAccessKey: "testing" } as const;
export const MOTO_REGION = "eu-west-1";

/** The machine has no moto by the operator's word: the suites that need it do not run. */
export const motoDisabled = process.env.ATTRIBUTION_TEST_NO_MOTO === "1";

/** One line naming what did not run, for a suite skipped for want of moto. */
export const reportNoMoto = (what: string): void => {
  if (motoDisabled) {
    console.warn(`not run (ATTRIBUTION_TEST_NO_MOTO=1, no moto server on this machine): ${what}`);
  }
};

const installedVersion = async (): Promise<string | undefined> => {
  try {
    const { stdout } = await run(PYTHON, ["-c", "import moto; print(moto.__version__)"]);
    return stdout.trim();
  } catch {
    return undefined;
  }
};

const install = async (): Promise<void> => {
  await rm(VENV, { recursive: true, force: true });
  try {
    await run("python3", ["-m", "venv", VENV]);
  } catch (error) {
    throw new Error(
      `moto: python3 -m venv ${VENV} failed (on Debian: apt-get install python3-venv), or set ATTRIBUTION_TEST_NO_MOTO=1 on a machine without it: ${String(error)}`,
    );
  }
  try {
    await run(
      join(VENV, "bin", "pip"),
      ["install", "--quiet", "--disable-pip-version-check", `moto[server]==${MOTO_VERSION}`],
      { maxBuffer: 16 * 1024 * 1024 },
    );
  } catch (error) {
    throw new Error(
      `moto: could not install moto[server]==${MOTO_VERSION} from PyPI into ${VENV}, or set ATTRIBUTION_TEST_NO_MOTO=1 on a machine without it: ${String(error)}`,
    );
  }
};

/**
 * Whether moto is there whole: its version imports, and no install holds the lock. An install
 * under way imports its version before pip has written `moto_server`, so the version alone
 * says nothing while the lock is held.
 */
const installedWhole = async (): Promise<boolean> =>
  (await installedVersion()) === MOTO_VERSION &&
  !(await stat(LOCK).then(
    () => true,
    () => false,
  ));

/** Installs moto once, whichever test file gets here first; the others wait for it. */
const ensureInstalled = async (): Promise<void> => {
  if (await installedWhole()) return;
  // mkdir is atomic: the file that makes the lock installs. A lock older than 10 minutes was
  // left by a run that died mid-install.
  for (let waited = 0; ; waited += 1) {
    try {
      await mkdir(LOCK);
      break;
    } catch {
      const age = await stat(LOCK).then(
        (s) => Date.now() - s.mtimeMs,
        () => 0,
      );
      if (age > 600_000) await rm(LOCK, { recursive: true, force: true });
      else if (waited > 1_200) throw new Error(`moto: ${LOCK} held for over 10 minutes`);
      else await sleep(500);
      if (await installedWhole()) return;
    }
  }
  try {
    if ((await installedVersion()) !== MOTO_VERSION) await install();
  } finally {
    await rm(LOCK, { recursive: true, force: true });
  }
};

const freePort = async (): Promise<number> => {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  server.close();
  await once(server, "close");
  return port;
};

export interface MotoServer {
  /** `http://127.0.0.1:<port>`: every service's endpoint. */
  readonly endpoint: string;
  stop(): Promise<void>;
}

/**
 * moto's server answering one request at a time. moto's threaded server checks a conditional
 * write's condition and makes the write without a lock, so two racing writes can both pass where
 * DynamoDB lets one; one at a time, a race of conditional writes is decided as on DynamoDB.
 */
const SERIAL_SERVER = `
import sys
from werkzeug.serving import run_simple
from moto.moto_server.werkzeug_app import DomainDispatcherApplication, MotoRequestHandler, create_backend_app
run_simple(sys.argv[1], int(sys.argv[2]), DomainDispatcherApplication(create_backend_app), threaded=False, request_handler=MotoRequestHandler)
`;

/** How long moto_server may take to answer once started. */
const START_WITHIN_MS = 90_000;

/**
 * Starts a moto server of its own (fresh state) on a loopback port, installing moto first;
 * `serial` for one that answers one request at a time (for DynamoDB's conditional writes; not
 * for SQS's long polls, which would hold every other request).
 */
export const startMoto = async (options: { serial?: boolean } = {}): Promise<MotoServer> => {
  await ensureInstalled();
  // The port was free when asked, and may be taken before moto binds it: moto then exits at
  // start (its message may not have been read yet), and is started on another. Any other cause
  // of an exit at start exits again, and the third is thrown.
  for (let tries = 1; ; tries += 1) {
    try {
      return await startMotoOn(await freePort(), options);
    } catch (error) {
      if (!(error instanceof ExitedAtStart) || tries === 3) throw error;
    }
  }
};

class ExitedAtStart extends Error {}

const startMotoOn = async (port: number, options: { serial?: boolean }): Promise<MotoServer> => {
  const endpoint = `http://127.0.0.1:${port}`;
  const [command, args] = options.serial
    ? [PYTHON, ["-c", SERIAL_SERVER, "127.0.0.1", String(port)]]
    : [SERVER, ["-H", "127.0.0.1", "-p", String(port)]];
  const child: ChildProcess = spawn(command, args, { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  // Its own server on the port, as werkzeug says once bound: what answers there before that
  // may be another process's, which took the port after it was found free.
  let bound = false;
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
    bound ||= new RegExp(`Running on ${endpoint}(?!\\d)`).test(stderr);
    stderr = stderr.slice(-4_000);
  });
  let exited = false;
  child.once("exit", () => {
    exited = true;
  });
  // Not started at all (no such program): said at once, not after the wait for an answer.
  child.once("error", (error) => {
    stderr += String(error);
    exited = true;
  });
  // Started when it is bound and answers; bounded, with room for a machine busy with other
  // suites (it takes about a second alone), within the hooks' 120 s.
  const deadline = Date.now() + START_WITHIN_MS;
  for (;;) {
    if (exited) throw new ExitedAtStart(`moto: moto_server exited at start: ${stderr}`);
    const up =
      bound &&
      (await fetch(`${endpoint}/moto-api/`).then(
        (response) => response.ok,
        () => false,
      ));
    if (up) break;
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(
        `moto: moto_server did not answer on ${endpoint} within ${START_WITHIN_MS / 1000} s: ${stderr}`,
      );
    }
    await sleep(100);
  }
  return {
    endpoint,
    async stop() {
      if (exited) return;
      const gone = once(child, "exit");
      child.kill("SIGTERM");
      await gone;
    },
  };
};

/** Client options for a service of the moto server. */
export const motoClientConfig = (server: MotoServer) => ({
  endpoint: server.endpoint,
  region: MOTO_REGION,
  credentials: MOTO_CREDENTIALS,
  // S3 by path (`/bucket/key`): moto on a bare host and port has no bucket subdomains.
  forcePathStyle: true,
});

/** Messages received from a queue, as the SQS event Lambda hands its worker. */
export const sqsEventOf = (
  messages: readonly Message[],
  queueArn: string,
  region: string,
): SQSEvent => ({
  Records: messages.map((message) => ({
    messageId: message.MessageId ?? "",
    receiptHandle: message.ReceiptHandle ?? "",
    body: message.Body ?? "",
    attributes: {
      ApproximateReceiveCount: message.Attributes?.ApproximateReceiveCount ?? "1",
      SentTimestamp: message.Attributes?.SentTimestamp ?? "",
      SenderId: message.Attributes?.SenderId ?? "",
      ApproximateFirstReceiveTimestamp: message.Attributes?.ApproximateFirstReceiveTimestamp ?? "",
    },
    messageAttributes: {},
    md5OfBody: message.MD5OfBody ?? "",
    eventSource: "aws:sqs",
    eventSourceARN: queueArn,
    awsRegion: region,
  })),
});

/**
 * A bucket and a delivery stream writing into it under `prefix`, on moto: what moto's Firehose
 * has of a lake table's stream (it writes each call's records as they come, as JSON lines).
 */
export const motoStreamIntoBucket = async (
  clients: { readonly s3: S3Client; readonly firehose: FirehoseClient },
  names: { readonly bucket: string; readonly stream: string; readonly prefix: string },
): Promise<void> => {
  await clients.s3.send(
    new CreateBucketCommand({
      Bucket: names.bucket,
      CreateBucketConfiguration: { LocationConstraint: MOTO_REGION },
    }),
  );
  await clients.firehose.send(
    new CreateDeliveryStreamCommand({
      DeliveryStreamName: names.stream,
      DeliveryStreamType: "DirectPut",
      ExtendedS3DestinationConfiguration: {
        BucketARN: `arn:aws:s3:::${names.bucket}`,
        RoleARN: `arn:aws:iam::123456789012:role/${names.stream}`,
        Prefix: names.prefix,
      },
    }),
  );
};

// `npx tsx test/local-aws/moto.ts install` installs moto ahead of the suites that start it: CI
// does so while the type check takes one core of two.
if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === "install") {
  await ensureInstalled();
}
