/**
 * Postbacks across a `kill -9` of the service, as `npm start` runs it: a send queued once its
 * install is attributed and not sent yet when the process dies goes once after the restart,
 * and one that was already delivered does not go again. The send is kept from going before
 * the kill by a slow partner: 8 of its sends hang at the mock network, the most a
 * configuration found slow may have at once, so the next waits in the queue while another
 * partner's send of the same install goes at once (one slow partner holds no one else's sends).
 */

import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPostbackConfigStore } from "../../src/adapters/dynamodb/postbacks.ts";
import { createKeyFileWrapper } from "../../src/adapters/key-file/key-file-wrapper.ts";
import { dataPaths, readRuntimeInfo } from "../../src/embedded/data-dir.ts";
import { heldStoresAt } from "../../src/embedded/held-stores.ts";
import { LOCAL_TABLE_NAMES } from "../../src/embedded/local-dynamodb.ts";
import { parsePartnerConfig } from "../../src/postbacks/config.ts";
import { SLOW_REQUEST_MS } from "../../src/postbacks/partner-slots.ts";
import { sendIdOf } from "../../src/postbacks/rules.ts";
import { sealPartnerConfig } from "../../src/postbacks/secrets.ts";
import { sendConfigKey } from "../../src/postbacks/triggers.ts";
import { SLOW_PER_CONFIGURATION } from "../../src/workers/postback-worker.ts";
import { type MockNetwork, type Received, startMockNetwork } from "../support/mock-network.ts";
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
  const client = new DynamoDBClient({
    endpoint: info.dynamodbEndpoint,
    region: "local",
    credentials: { accessKeyId: "local", secretAccessKey: "local" },
  });
  const doc = DynamoDBDocumentClient.from(client);
  return {
    configs: createPostbackConfigStore(doc, LOCAL_TABLE_NAMES.postbackConfigs),
    log: heldStoresAt(info.heldStores).deliveryLog,
    close: () => client.destroy(),
  };
};

describe("postbacks across a kill -9", () => {
  let dataDir: string;
  let service: Service;
  let mock: MockNetwork;
  let keys: { sdk: string; server: string };
  /** Until the kill, the slow partner answers nothing. */
  let slow = true;

  beforeAll(async () => {
    mock = await startMockNetwork((request: Received) =>
      request.path === "/slow" && slow ? "hold" : { status: 200, body: "ok" },
    );
    dataDir = await mkdtemp(join(tmpdir(), "attribution-postbacks-durable-"));
    service = await startService(dataDir, SETTINGS);
    keys = await createAppWithCli(dataDir, APP, "Postbacks");
    // Saved through the stores (no configuration route yet), sealed with the service's key.
    const stores = await storesOf(dataDir);
    const wrapper = createKeyFileWrapper(dataPaths(dataDir).masterKey);
    for (const id of ["slow", "fast"]) {
      const config = parsePartnerConfig({
        id,
        appId: APP,
        partner: "custom",
        template: { method: "GET", install: { url: `${mock.url}/${id}?sid={service_id}` } },
        mediaSources: ["network_x"],
        installs: "all",
      });
      await stores.configs.putPartner(await sealPartnerConfig(config, wrapper));
    }
    stores.close();
  });

  afterAll(async () => {
    await stopService(service.child);
    await mock.close();
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

  const to = (path: string, serviceId: string) =>
    mock.received.filter((r) => r.path === path && r.query.get("sid") === serviceId);

  it("sends a postback queued before the kill once after the restart, and a delivered one not again", async () => {
    const hanging = Array.from({ length: SLOW_PER_CONFIGURATION }, (_, i) => `hang-${i}`);
    for (const serviceId of hanging) await install(serviceId);
    await mock.waitFor((r) => r.path === "/slow", SLOW_PER_CONFIGURATION);
    await mock.waitFor((r) => r.path === "/fast", SLOW_PER_CONFIGURATION);

    // Unanswered this long, the partner is found slow, and holds as many requests as it may.
    await sleep(SLOW_REQUEST_MS + 500);
    // Attributed, its sends queued: the fast partner's goes, the slow one's waits its turn.
    await install("waiting");
    await mock.waitFor((r) => r.path === "/fast" && r.query.get("sid") === "waiting");
    await sleep(500);
    expect(to("/slow", "waiting")).toEqual([]);
    const stores = await storesOf(dataDir);
    const sendId = sendIdOf(sendConfigKey(APP, "partner", "slow"), {
      kind: "install",
      serviceId: "waiting",
    });
    // No attempt of it made yet.
    const before = await stores.log.listByApp(APP, { limit: 100 });
    expect(before.entries.filter((entry) => entry.sendId === sendId)).toEqual([]);
    stores.close();

    const exited = once(service.child, "exit");
    service.child.kill("SIGKILL");
    await exited;
    slow = false;
    service = await startService(dataDir, SETTINGS);

    const [sent] = await mock.waitFor(
      (r) => r.path === "/slow" && r.query.get("sid") === "waiting",
    );
    // The sends the kill cut off are made again (delivery is at least once), and answered.
    await mock.waitFor(
      (r) => r.path === "/slow" && r.status === 200 && hanging.includes(r.query.get("sid") ?? ""),
      SLOW_PER_CONFIGURATION,
    );
    await sleep(1_000);
    expect(sent?.status).toBe(200);
    expect(to("/slow", "waiting")).toHaveLength(1);
    expect(to("/fast", "waiting")).toHaveLength(1);
    for (const serviceId of hanging) expect(to("/fast", serviceId)).toHaveLength(1);

    const after = await storesOf(dataDir);
    const { entries } = await after.log.listByApp(APP, { limit: 100 });
    expect(
      entries
        .filter((entry) => entry.sendId === sendId)
        .map((entry) => [entry.attempt, entry.verdict]),
    ).toEqual([[1, "delivered"]]);
    after.close();
  }, 120_000);
});
