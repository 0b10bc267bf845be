/**
 * The dashboard's apps on the DynamoDB app and key stores (dynalite, as the embedded runtime
 * keeps them): settings changes of one app made at once, each applied to the app as the other
 * left it, so both hold; and an app's settings and keys as the dashboard writes and reads them.
 */
import { describe, expect, it } from "vitest";
import { dynaliteForTests } from "../adapters/dynamodb/dynamo-targets.test-support.ts";
import { createAppStore, createKeyStore } from "../adapters/dynamodb/stores.ts";
import type { KeyWrapper } from "../crypto/key-wrapper.ts";
import { LOCAL_TABLE_NAMES } from "../embedded/local-dynamodb.ts";
import type { KeyStore } from "../ports/apps.ts";
import type { UserStore } from "../ports/users.ts";
import { createSkadnetworkSettings } from "../skadnetwork/settings.ts";
import { createDashboardApps } from "./apps.ts";
import { memoryUserStore } from "./memory-stores.test-support.ts";

const OWNER = "owner@example.com";

/** A promise and the function that settles it, to hold one change until another is saved. */
const gate = () => {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
};

/**
 * Wraps as a test may (the crypto is the adapters'); the first wrap, which sealing makes after
 * reading the app, says so (`entered`) and waits until `until`.
 */
const heldWrapper = (until: Promise<void>): KeyWrapper & { entered: Promise<void> } => {
  const entered = gate();
  let wraps = 0;
  return {
    entered: entered.opened,
    async wrap(plaintext: Buffer) {
      wraps += 1;
      if (wraps === 1) {
        entered.open();
        await until;
      }
      return plaintext.toString("base64");
    },
    unwrap: async (wrapped: string) => Buffer.from(wrapped, "base64"),
  };
};

describe("an app's settings changed at once", () => {
  const dynamo = dynaliteForTests("dashboard-apps-");

  const setUp = async (appId: string, options: { wrapper: KeyWrapper; users?: UserStore }) => {
    const apps = createAppStore(dynamo().doc, LOCAL_TABLE_NAMES.apps);
    const users =
      options.users ??
      memoryUserStore([
        { email: OWNER, admin: false, appIds: [appId], createdAt: "t", sessionGeneration: "g" },
      ]);
    const dashboard = createDashboardApps({
      apps,
      keys: {} as KeyStore,
      users,
      keyWrapper: options.wrapper,
    });
    await dashboard.create(OWNER, { app_id: appId, name: "Race", platform: "android" });
    return { apps, dashboard };
  };

  it("refuses a link host the deployment does not serve, saying how it comes to be served", async () => {
    const apps = createAppStore(dynamo().doc, LOCAL_TABLE_NAMES.apps);
    const dashboard = createDashboardApps({
      apps,
      keys: {} as KeyStore,
      users: memoryUserStore([
        {
          email: OWNER,
          admin: false,
          appIds: ["com.example.served"],
          createdAt: "t",
          sessionGeneration: "g",
        },
      ]),
      keyWrapper: heldWrapper(Promise.resolve()),
      servedLinkHosts: () => ["go.served.example"],
    });
    await dashboard.create(OWNER, {
      app_id: "com.example.served",
      name: "Served",
      platform: "android",
    });
    await expect(
      dashboard.update(OWNER, "com.example.served", { links: { hosts: ["go.unserved.example"] } }),
    ).rejects.toThrow(/go\.unserved\.example is not served by this deployment yet/);
    expect((await apps.get("com.example.served"))?.links?.hosts).toBeUndefined();
    await dashboard.update(OWNER, "com.example.served", {
      links: { hosts: ["go.served.example"] },
    });
    expect((await apps.get("com.example.served"))?.links?.hosts).toEqual(["go.served.example"]);
  });

  it("keeps a click window changed while sealing went on (sealing read the app first)", async () => {
    const saved = gate();
    const wrapper = heldWrapper(saved.opened);
    const { apps, dashboard } = await setUp("com.example.race.window", { wrapper });

    // Sealing reads the app, then waits in the key's wrap until the window change is saved.
    const sealing = dashboard.update(OWNER, "com.example.race.window", {
      encryption: { enabled: true },
    });
    await wrapper.entered;
    await dashboard.update(OWNER, "com.example.race.window", {
      attribution: { click_window_days: 3 },
    });
    saved.open();
    const answer = await sealing;

    const stored = await apps.get("com.example.race.window");
    expect(stored?.attribution?.clickWindowDays).toBe(3);
    expect(stored?.encryptionEnabled).toBe(true);
    // The key the answer named is the one kept, so what SDKs seal to it can be opened.
    expect(stored?.encryptionKeys?.map((key) => key.keyId)).toEqual([answer.encryption.key_id]);
    expect(answer.attribution.click_window_days).toBe(3);
  });

  it("keeps sealing's key when a change read the app before sealing went on", async () => {
    const sealed = gate();
    const asked = gate();
    let reads = 0;
    const owner = memoryUserStore([
      {
        email: OWNER,
        admin: false,
        appIds: ["com.example.race.hosts"],
        createdAt: "t",
        sessionGeneration: "g",
      },
    ]);
    // The hosts change asks for its user after reading the app: held there until sealing saved.
    const users: UserStore = {
      ...owner,
      async get(email) {
        reads += 1;
        if (reads === 1) {
          asked.open();
          await sealed.opened;
        }
        return owner.get(email);
      },
    };
    const { apps, dashboard } = await setUp("com.example.race.hosts", {
      wrapper: heldWrapper(Promise.resolve()),
      users,
    });

    const hosts = dashboard.update(OWNER, "com.example.race.hosts", {
      links: { hosts: ["go.race.example"] },
    });
    await asked.opened;
    const answer = await dashboard.update(OWNER, "com.example.race.hosts", {
      encryption: { enabled: true },
    });
    sealed.open();
    await hosts;

    const stored = await apps.get("com.example.race.hosts");
    expect(stored?.links?.hosts).toEqual(["go.race.example"]);
    expect(stored?.encryptionEnabled).toBe(true);
    expect(answer.encryption.key_id).toEqual(expect.any(String));
    expect(stored?.encryptionKeys?.map((key) => key.keyId)).toEqual([answer.encryption.key_id]);
  });

  it("keeps sealing on when a SKAdNetwork schema is saved meanwhile, and numbers schemas in turn", async () => {
    const saved = gate();
    const wrapper = heldWrapper(saved.opened);
    const { apps, dashboard } = await setUp("com.example.race.schema", { wrapper });
    const skadnetwork = createSkadnetworkSettings({ apps });
    const schema = {
      windows: [
        {
          rules: [{ event: "service_purchase", min_count: 1, fine: 1, coarse: "low", lock: false }],
        },
        { rules: [] },
        { rules: [] },
      ],
    };

    const sealing = dashboard.update(OWNER, "com.example.race.schema", {
      encryption: { enabled: true },
    });
    await wrapper.entered;
    const [first, second] = await Promise.all([
      skadnetwork.saveSchema("com.example.race.schema", schema),
      skadnetwork.saveSchema("com.example.race.schema", schema),
    ]);
    saved.open();
    await sealing;

    const stored = await apps.get("com.example.race.schema");
    expect(stored?.encryptionEnabled).toBe(true);
    expect([first.version, second.version].sort()).toEqual([1, 2]);
    expect(stored?.skadnetwork?.schema?.version).toBe(2);
  });
});

describe("an app's settings and keys as the dashboard reads and writes them", () => {
  const dynamo = dynaliteForTests("dashboard-app-settings-");
  const wrapper: KeyWrapper = {
    wrap: async (plaintext: Buffer) => plaintext.toString("base64"),
    unwrap: async (wrapped: string) => Buffer.from(wrapped, "base64"),
  };

  const setUp = async (appId: string) => {
    const changes: string[] = [];
    const dashboard = createDashboardApps({
      apps: createAppStore(dynamo().doc, LOCAL_TABLE_NAMES.apps),
      keys: createKeyStore(dynamo().doc, LOCAL_TABLE_NAMES.keys),
      users: memoryUserStore([
        { email: OWNER, admin: false, appIds: [], createdAt: "t", sessionGeneration: "g" },
      ]),
      keyWrapper: wrapper,
      onChange: () => {
        changes.push("changed");
      },
    });
    await dashboard.create(OWNER, { app_id: appId, name: "  Settings  ", platform: "ios" });
    return { dashboard, changes };
  };

  it("trims a name, clears a link setting sent as null, and reads back what it saved", async () => {
    const { dashboard, changes } = await setUp("com.example.settings");
    // Created: the caches in front of the apps are told.
    expect(changes).toEqual(["changed"]);
    expect((await dashboard.get("com.example.settings")).name).toBe("Settings");
    await expect(dashboard.update(OWNER, "com.example.settings", { name: "   " })).rejects.toThrow(
      "name: must not be empty",
    );
    await dashboard.update(OWNER, "com.example.settings", {
      attribution: { probabilistic: { android: false, ios: true } },
      links: { web_url: "https://example.com/game" },
    });
    const cleared = await dashboard.update(OWNER, "com.example.settings", {
      links: { web_url: null },
    });
    expect(cleared.links.web_url).toBeNull();
    expect(cleared.attribution.probabilistic).toEqual({ android: false, ios: true });
    // One attribution setting changed: the others stay as they were set.
    const windowed = await dashboard.update(OWNER, "com.example.settings", {
      attribution: { click_window_days: 3 },
    });
    expect(windowed.attribution).toMatchObject({
      click_window_days: 3,
      probabilistic: { android: false, ios: true },
    });
    // A refusal names the request's field, not the setting's own name, and a bound in words.
    await expect(
      dashboard.update(OWNER, "com.example.settings", { links: { web_url: "ftp://example.com" } }),
    ).rejects.toThrow("links.web_url: must be an http or https URL");
    await expect(
      dashboard.update(OWNER, "com.example.settings", {
        links: { web_url: `https://example.com/${"a".repeat(2_048)}` },
      }),
    ).rejects.toThrow("links.web_url: must be at most 2048 characters");
    // Every problem of a body at once: the link settings' rules beside the body's own.
    await expect(
      dashboard.update(OWNER, "com.example.settings", {
        name: "n".repeat(250),
        time_zone: "Mars/Olympus",
        links: { web_url: "ftp://x.example/", hosts: ["go_example.com"] },
      }),
    ).rejects.toThrow(
      /^name: .*; time_zone: must be an IANA time zone.*; links\.web_url: must be an http or https URL; links\.hosts\[0\]: /,
    );
    // Renamed and switched off, each a change of its own: the rest stays as set.
    const renamed = await dashboard.update(OWNER, "com.example.settings", { name: " Renamed " });
    expect(renamed).toMatchObject({ name: "Renamed", enabled: true });
    const off = await dashboard.update(OWNER, "com.example.settings", { enabled: false });
    expect(off).toMatchObject({ name: "Renamed", enabled: false });
    expect(await dashboard.get("com.example.settings")).toMatchObject({
      name: "Renamed",
      enabled: false,
      attribution: { click_window_days: 3 },
    });
  });

  it("issues keys for an app that exists only, and tells the caches of a revoked one", async () => {
    const { dashboard, changes } = await setUp("com.example.keyed");
    await expect(dashboard.issueKey("com.example.gone", { kind: "sdk" })).rejects.toThrow(
      "App com.example.gone does not exist.",
    );
    const issued = await dashboard.issueKey("com.example.keyed", { kind: "server" });
    changes.length = 0;
    // Another app's key is as unknown as one that does not exist, and stays in force.
    await setUp("com.example.other");
    await expect(dashboard.revokeKey("com.example.other", issued.key_id)).rejects.toThrow(
      `App com.example.other has no key ${issued.key_id}.`,
    );
    await expect(dashboard.revokeKey("com.example.keyed", "key_none")).rejects.toThrow(
      "App com.example.keyed has no key key_none.",
    );
    changes.length = 0;
    const revoked = await dashboard.revokeKey("com.example.keyed", issued.key_id);
    expect(revoked.revoked_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    // The store holds it so, as the key list (and the authorizer) read it.
    const listed = await dashboard.keys("com.example.keyed");
    expect(listed.find((key) => key.key_id === issued.key_id)?.revoked_at).toBe(revoked.revoked_at);
    expect(changes).toEqual(["changed"]);
  });
});
