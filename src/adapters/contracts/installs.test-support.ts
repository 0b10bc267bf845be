/**
 * The install store's contract (InstallStore and InstallHistory in src/ports/installs.ts), one
 * suite for every store behind the port: the DynamoDB table (on dynalite, and on DynamoDB's API
 * as moto's server answers it, as on AWS) and the embedded runtime's own store. Each store's
 * test file calls `describeInstallStoreContract` with a factory of its own side; the `it`s share
 * its store, each with apps of its own. Held here: an install stored once per app and service
 * id, a repeat answered with the first; its consent replaced, never making an install, and its
 * advertising id and ATT status with it when the device's are given; an iOS
 * device's installs by IDFV; deletion.
 */
import { describe, expect, it } from "vitest";
import { storedInstall } from "../../../test/support/installs.ts";
import type { Install, InstallHistory, InstallStore } from "../../ports/installs.ts";
import { underTest } from "./under-test.test-support.ts";

export interface InstallStoreUnderTest {
  readonly store: InstallStore & InstallHistory;
  close(): Promise<void>;
}

let apps = 0;
/** An app of its own for each use, so that tests share a store and not their installs. */
const freshApp = () => `com.installs.t${++apps}`;

const install = (appId: string, serviceId: string, overrides: Partial<Install> = {}): Install =>
  storedInstall(appId, serviceId, {
    installReferrer: {
      referrer: "utm_source=x&clickid=abc",
      clickTimestamp: 1,
      installBeginTimestamp: 2,
      clickServerTimestamp: 3,
      installBeginServerTimestamp: 4,
      installVersion: "1.2.3",
    },
    ...overrides,
  });

export const describeInstallStoreContract = (
  name: string,
  factory: () => Promise<InstallStoreUnderTest>,
): void => {
  describe(`the install store: ${name}`, () => {
    const subject = underTest(factory);
    const store = () => subject().store;

    it("stores an install once per app and service id; a repeat returns the first", async () => {
      const [app, other] = [freshApp(), freshApp()];
      const first = await store().putIfAbsent(install(app, "s1"));
      const again = await store().putIfAbsent(install(app, "s1", { osVersion: "15" }));
      expect(first).toEqual({ install: install(app, "s1"), created: true });
      expect(again).toEqual({ install: install(app, "s1"), created: false });
      expect(await store().get(app, "s1")).toEqual(install(app, "s1"));
      expect(await store().get(other, "s1")).toBeUndefined();
      await store().delete(app, "s1");
      await store().delete(app, "none");
      expect(await store().get(app, "s1")).toBeUndefined();
      // Reported again after its deletion: a new install.
      expect((await store().putIfAbsent(install(app, "s1", { osVersion: "15" }))).created).toBe(
        true,
      );
    });

    it("replaces an install's consent, and never makes an install of a consent", async () => {
      const [app, other] = [freshApp(), freshApp()];
      await store().putIfAbsent(install(app, "c1"));
      const consent = {
        gdprApplies: true,
        adUserData: false,
        adPersonalization: true,
        tcfString: "CQF0-AAQF0-AAAHABBENBJFgAP_gAAAAAAAAAAAAAAAA",
        updatedAt: "2026-11-02T10:00:00.000Z",
      };
      expect(await store().update(app, "c1", { consent: consent })).toEqual(
        install(app, "c1", { consent }),
      );
      const later = { ...consent, adUserData: true, updatedAt: "2026-11-03T10:00:00.000Z" };
      await store().update(app, "c1", { consent: later });
      expect((await store().get(app, "c1"))?.consent).toEqual(later);
      expect(await store().update(other, "c1", { consent: consent })).toBeUndefined();
      expect(await store().get(other, "c1")).toBeUndefined();
    });

    it("replaces an install's advertising id and ATT status with the device's, only when given", async () => {
      const app = freshApp();
      await store().putIfAbsent(install(app, "t1", { attStatus: "authorized" }));
      const consent = {
        gdprApplies: null,
        adUserData: null,
        adPersonalization: null,
        tcfString: null,
        updatedAt: "2026-11-02T10:00:00.000Z",
      };
      const first = await store().get(app, "t1");
      expect(first?.maid).not.toBeNull();
      // A consent alone leaves them as the first open reported them.
      await store().update(app, "t1", { consent: consent });
      expect(await store().get(app, "t1")).toMatchObject({
        maid: first?.maid,
        attStatus: "authorized",
      });
      // The user turned tracking off after the install: the install now has neither.
      const updated = await store().update(app, "t1", {
        consent,
        tracking: { maid: null, attStatus: "denied" },
      });
      expect(updated).toMatchObject({ maid: null, attStatus: "denied", consent });
      expect(await store().get(app, "t1")).toEqual(updated);
    });

    it("replaces the advertising id and ATT status alone, keeping the consent, or none of an install not there", async () => {
      const app = freshApp();
      const consent = {
        gdprApplies: true,
        adUserData: true,
        adPersonalization: null,
        tcfString: null,
        updatedAt: "2026-11-02T10:00:00.000Z",
      };
      await store().putIfAbsent(install(app, "u1", { os: "ios", maid: null, consent }));
      const tracking = {
        maid: "EA7583CD-A667-48BC-B806-42ECB2B48606",
        attStatus: "authorized",
      } as const;
      const updated = await store().update(app, "u1", { tracking });
      expect(updated).toEqual(install(app, "u1", { os: "ios", consent, ...tracking }));
      expect(await store().get(app, "u1")).toEqual(updated);
      expect(await store().update(app, "absent", { tracking })).toBeUndefined();
      expect(await store().get(app, "absent")).toBeUndefined();
    });

    it("finds an app's installs of one IDFV, this one's and no other app's or device's", async () => {
      const [app, other] = [freshApp(), freshApp()];
      const idfv = "6D92078A-8246-4BA4-AE5B-76104861E7DC";
      await store().putIfAbsent(install(app, "first", { os: "ios", idfv }));
      await store().putIfAbsent(install(app, "again", { os: "ios", idfv }));
      await store().putIfAbsent(install(app, "elsewhere", { os: "ios", idfv: `${idfv}0` }));
      await store().putIfAbsent(install(app, "android", { idfv: null }));
      await store().putIfAbsent(install(other, "first", { os: "ios", idfv }));
      const found = await store().withIdfv(app, idfv);
      expect(found.map((one) => one.serviceId).sort()).toEqual(["again", "first"]);
      expect(found.find((one) => one.serviceId === "first")).toEqual(
        install(app, "first", { os: "ios", idfv }),
      );
      await store().delete(app, "again");
      expect((await store().withIdfv(app, idfv)).map((one) => one.serviceId)).toEqual(["first"]);
      expect(await store().withIdfv(freshApp(), idfv)).toEqual([]);
    });
  });
};
