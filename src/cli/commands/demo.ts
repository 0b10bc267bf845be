/** Fills the lake with realistic demo data for two apps, through the lake's delivery streams. */
import { embeddedConfig } from "../../config/embedded.ts";
import { type DemoApp, generateDemo } from "../../demo/generate.ts";
import { createApp } from "../../domain/apps.ts";
import { openLake } from "../../embedded/runtime.ts";
import { loadEcbRates } from "../../fx/ecb-rates.ts";
import type { LakeRecord } from "../../lake/tables.ts";
import { withLocalStores } from "../local-data.ts";

export const DEMO_APPS: readonly DemoApp[] = [
  { appId: "com.example.game", appName: "Example Game", platform: "android" },
  { appId: "com.example.shop", appName: "Example Shop", platform: "ios" },
];

const BATCH = 1_000;

export const demoCommand = async (options: {
  dataDir: string;
  days: number;
  installs: number;
  seed: number;
}) => {
  await withLocalStores(options.dataDir, async (stores) => {
    for (const demo of DEMO_APPS) {
      if (await stores.apps.get(demo.appId)) continue;
      const { keys } = await createApp(
        { appId: demo.appId, name: demo.appName, platform: demo.platform },
        stores,
      );
      console.log(`Created demo app ${demo.appId}; its keys (shown once):`);
      for (const key of keys) console.log(`  ${key.kind.padEnd(7)} ${key.key}`);
    }
  });

  const lake = await openLake(embeddedConfig(process.env, { dataDir: options.dataDir }));
  const counts = { events: 0, attributions: 0 };
  try {
    const batches: Record<"events" | "attributions", LakeRecord[]> = {
      events: [],
      attributions: [],
    };
    const send = async (table: "events" | "attributions") => {
      await lake.streams[table].put(batches[table]);
      counts[table] += batches[table].length;
      batches[table] = [];
    };
    for (const { table, record } of generateDemo({
      apps: DEMO_APPS,
      days: options.days,
      installs: options.installs,
      end: new Date(),
      seed: options.seed,
      fx: await loadEcbRates(),
    })) {
      batches[table].push(record);
      if (batches[table].length >= BATCH) await send(table);
    }
    await send("events");
    await send("attributions");
  } finally {
    await lake.close();
  }
  console.log(
    `Wrote ${counts.events} events and ${counts.attributions} attributions for ${DEMO_APPS.map((a) => a.appId).join(" and ")}.`,
  );
};
