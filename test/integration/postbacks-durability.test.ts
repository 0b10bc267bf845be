/**
 * Postbacks across a `kill -9` of the service, as `npm start` runs it: a send queued once its
 * install is attributed and not sent yet when the process dies goes once after the restart,
 * and one that was already delivered does not go again. The send is kept from going before
 * the kill by a slow partner: 8 of its sends hang at its mock network, the most a
 * configuration found slow may have at once, so the next waits in the queue while another
 * partner's send of the same install, to another network, goes at once (one slow partner holds
 * no one else's sends).
 *
 * What the process may have done before the kill does not rest on how long anything took: the
 * hanging sends end on the service's own 10 s time-out, and on a machine slow enough that they
 * end before the kill, the waiting send goes then and is held in its turn, and the kill, once
 * the other partner's send of the same install is logged, comes before its time-out. Either way
 * the kill cuts it off before an answer, and after the restart it is answered once and logged
 * delivered once.
 */

import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPostbackConfigStore } from "../../src/adapters/dynamodb/postbacks.ts";
import { createKeyFileWrapper } from "../../src/adapters/key-file/key-file-wrapper.ts";
import { dataPaths, readRuntimeInfo } from "../../src/embedded/data-dir.ts";
import { heldStoresAt } from "../../src/embedded/held-stores.ts";
import { connectDynamoDb, LOCAL_TABLE_NAMES } from "../../src/embedded/local-dynamodb.ts";
import { parsePartnerConfig } from "../../src/postbacks/config.ts";
import { SLOW_REQUEST_MS } from "../../src/postbacks/partner-slots.ts";
import { sendIdOf } from "../../src/postbacks/rules.ts";
import { sealPartnerConfig } from "../../src/postbacks/secrets.ts";
import { sendConfigKey } from "../../src/postbacks/triggers.ts";
import { SLOW_PER_CONFIGURATION } from "../../src/workers/postback-worker.ts";
import { type MockNetwork, startMockNetwork } from "../support/mock-network.ts";
import { createAppWithCli, type Service, startService, stopService } from "../support/service.ts";

const APP = "com.example.postbacks.durable";
const SETTINGS = { ATTRIBUTION_POSTBACKS_ALLOW_LOOPBACK: "true" };

/**
 * The configurations and the delivery log of the service's data folder, as the CLI reaches
 * them while it runs: through its DynamoDB-compatible server, and through the bridge to the
 * stores it alone opens (the delivery log; the outbox too, which no one else reads).
 */
const storesOf = async (dataDir: string) => {
  const info = await readRuntimeInfo(dataDir);
  if (!info) throw new Error("the service is not running");
  const dynamo = connectDynamoDb(info.dynamodbEndpoint, info.dynamodbToken);
  return {
    configs: createPostbackConfigStore(dynamo.doc, LOCAL_TABLE_NAMES.postbackConfigs),
    log: heldStoresAt(info.heldStores).deliveryLog,
    close: () => dynamo.close(),
  };
};

describe("postbacks across a kill -9", () => {
  let dataDir: string;
  let service: Service;
  /** The slow partner's network and the fast one's: two destinations, as two networks are. */
  let slowNetwork: MockNetwork;
  let fastNetwork: MockNetwork;
  let keys: { sdk: string; server: string };
  /** Until the kill, the slow partner answers nothing. */
  let slow = true;

  beforeAll(async () => {
    slowNetwork = await startMockNetwork(() => (slow ? "hold" : { status: 200, body: "ok" }));
    fastNetwork = await startMockNetwork(() => ({ status: 200, body: "ok" }));
    dataDir = await mkdtemp(join(tmpdir(), "attribution-postbacks-durable-"));
    service = await startService(dataDir, SETTINGS);
    keys = await createAppWithCli(dataDir, APP, "Postbacks");
    // Saved through the stores (no configuration route yet), sealed with the service's key.
    const stores = await storesOf(dataDir);
    const wrapper = createKeyFileWrapper(dataPaths(dataDir).masterKey);
    for (const [id, network] of [
      ["slow", slowNetwork],
      ["fast", fastNetwork],
    ] as const) {
      const config = parsePartnerConfig({
        id,
        appId: APP,
        partner: "custom",
        template: { method: "GET", install: { url: `${network.url}/${id}?sid={service_id}` } },
        mediaSources: ["network_x"],
        installs: "all",
      });
      await stores.configs.putPartner(await sealPartnerConfig(config, wrapper));
    }
    stores.close();
  });

  afterAll(async () => {
    await stopService(service.child);
    await slowNetwork.close();
    await fastNetwork.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  const install = async (serviceId: string) => {
    const response = await fetch(`${service.url}/v1/installs`, {
      method: "POST",
      headers: { authorization: keys.sdk, "content-type": "application/json" },
      body: JSON.stringify({
        service_id: serviceId,
        os: "android",
        sdk_platform: "kotlin",
        sdk_version: "1.11.0",
        first_open_time: new Date(Date.now() - 60_000).toISOString(),
      }),
    });
    expect(response.status).toBe(202);
  };

  const to = (network: MockNetwork, serviceId: string) =>
    network.received.filter((r) => r.query.get("sid") === serviceId);
  const answered = (network: MockNetwork, serviceId: string) =>
    to(network, serviceId).filter((r) => r.status === 200);
  const sendOf = (configId: string, serviceId: string) =>
    sendIdOf(sendConfigKey(APP, "partner", configId), { kind: "install", serviceId });

  /** The attempts the log has of each send, as [attempt, verdict], oldest first. */
  const attemptsOf = async (sendIds: readonly string[]) => {
    const stores = await storesOf(dataDir);
    try {
      const { entries } = await stores.log.listByApp(APP, { limit: 200 });
      return sendIds.map((sendId) =>
        entries
          .filter((entry) => entry.sendId === sendId)
          .map((entry) => [entry.attempt, entry.verdict] as const)
          .reverse(),
      );
    } finally {
      stores.close();
    }
  };

  /** Asks the log again until each send has an attempt, within 30 s; their attempts. */
  const whenLogged = async (sendIds: readonly string[]) => {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const attempts = await attemptsOf(sendIds);
      if (attempts.every((one) => one.length > 0)) return attempts;
      if (Date.now() > deadline) throw new Error(`not all logged: ${JSON.stringify(attempts)}`);
      await sleep(100);
    }
  };

  it("sends a postback queued before the kill once after the restart, and a delivered one not again", async () => {
    const hanging = Array.from({ length: SLOW_PER_CONFIGURATION }, (_, i) => `hang-${i}`);
    for (const serviceId of hanging) await install(serviceId);
    await slowNetwork.waitFor(() => true, SLOW_PER_CONFIGURATION);
    await fastNetwork.waitFor(() => true, SLOW_PER_CONFIGURATION);

    // Unanswered this long, the partner is found slow, and holds as many requests as it may.
    await sleep(SLOW_REQUEST_MS + 500);
    // Attributed, its sends queued: the fast partner's goes, the slow one's waits its turn.
    await install("waiting");
    // Killed once the fast partner's send is logged and settled (off the outbox, so it does not
    // go again after the restart): it went at once, so the slow partner's send, if it went too
    // (the hanging ones ended first), is still held, well within its own time-out.
    // Logged means settled: the worker appends an attempt's record only once its send is
    // settled (src/workers/postback-worker.ts), so no wait is needed before the kill.
    await whenLogged([sendOf("fast", "waiting")]);
    const exited = once(service.child, "exit");
    service.child.kill("SIGKILL");
    await exited;
    const before = to(slowNetwork, "waiting").length;
    expect(answered(slowNetwork, "waiting")).toEqual([]);
    slow = false;
    service = await startService(dataDir, SETTINGS);

    await slowNetwork.waitFor((r) => r.query.get("sid") === "waiting" && r.status === 200);
    // The sends the kill cut off are made again (delivery is at least once) and answered; one
    // that ended on its time-out before the kill waits its next attempt, 15 minutes on.
    const hangingAttempts = await whenLogged(hanging.map((sid) => sendOf("slow", sid)));
    hanging.forEach((serviceId, i) => {
      const attempts = hangingAttempts[i];
      if (attempts?.[0]?.[1] === "delivered") {
        expect(answered(slowNetwork, serviceId)).toHaveLength(1);
      } else {
        expect(attempts).toEqual([[1, "retry"]]);
        expect(answered(slowNetwork, serviceId)).toEqual([]);
      }
    });
    const [waitingAttempts] = await whenLogged([sendOf("slow", "waiting")]);
    expect(waitingAttempts).toEqual([[1, "delivered"]]);
    expect(answered(slowNetwork, "waiting")).toHaveLength(1);
    expect(to(slowNetwork, "waiting")).toHaveLength(before + 1);
    // The fast partner's sends, delivered before the kill, do not go again.
    expect(to(fastNetwork, "waiting")).toHaveLength(1);
    for (const serviceId of hanging) expect(to(fastNetwork, serviceId)).toHaveLength(1);
  }, 120_000);
});
