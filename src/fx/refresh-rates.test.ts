import { describe, expect, it, vi } from "vitest";
import type { RatesTable } from "../ports/rates.ts";
import { parseEcbRates } from "./ecb-rates.ts";
import { refreshRates } from "./refresh-rates.ts";
import { ratesFrom, reloadingRates } from "./reloading-rates.ts";

const SHIPPED = "Date,USD,JPY,\n2025-05-09,1.1252,163.36,\n2025-05-08,1.1297,163.45,\n";

const feedOf = (day: string, usd: number) =>
  `<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01"><Cube><Cube time="${day}"><Cube currency="USD" rate="${usd}"/><Cube currency="JPY" rate="160"/></Cube></Cube></gesmes:Envelope>`;

const memoryTable = () => {
  const table = { text: undefined as string | undefined, writes: 0 };
  const port: RatesTable = {
    read: async () => table.text,
    write: async (text) => {
      table.text = text;
      table.writes += 1;
    },
  };
  return { table, port };
};

describe("refreshRates", () => {
  it("starts from the shipped history, then merges each day's feed into the stored table", async () => {
    const { table, port } = memoryTable();
    const shipped = vi.fn(async () => SHIPPED);
    expect(
      await refreshRates({ table: port, feed: async () => feedOf("2026-11-19", 1.05), shipped }),
    ).toEqual({ firstDate: "2025-05-08", lastDate: "2026-11-19" });
    expect(
      await refreshRates({ table: port, feed: async () => feedOf("2026-11-20", 1.06), shipped }),
    ).toEqual({ firstDate: "2025-05-08", lastDate: "2026-11-20" });
    expect(shipped).toHaveBeenCalledTimes(1);
    const rates = parseEcbRates(table.text ?? "");
    expect(rates.toUsd(1, "EUR", "2026-11-19")).toBe(1.05);
    expect(rates.toUsd(1, "EUR", "2026-11-20")).toBe(1.06);
    expect(rates.toUsd(1, "EUR", "2025-05-09")).toBe(1.1252);
  });

  it("stores nothing when the feed is not the ECB's, or cannot be fetched", async () => {
    const { table, port } = memoryTable();
    const shipped = async () => SHIPPED;
    await expect(
      refreshRates({ table: port, feed: async () => "<html>maintenance</html>", shipped }),
    ).rejects.toThrow(/ECB feed/);
    await expect(
      refreshRates({ table: port, feed: () => Promise.reject(new Error("timeout")), shipped }),
    ).rejects.toThrow(/timeout/);
    expect(table.writes).toBe(0);
  });
});

describe("reloadingRates", () => {
  it("answers from the table loaded last, and loads it again in the background once old", async () => {
    let clock = 0;
    const tables = [SHIPPED, SHIPPED.replace("1.1252", "1.2")];
    const load = vi.fn(async () => parseEcbRates(tables.shift() ?? ""));
    const rates = await reloadingRates(load, { maxAgeMs: 1_000, now: () => clock });
    expect(rates.toUsd(1, "EUR", "2025-05-09")).toBe(1.1252);
    expect(load).toHaveBeenCalledTimes(1);
    clock = 1_000;
    // The answer that starts the reload does not wait for it.
    expect(rates.toUsd(1, "EUR", "2025-05-09")).toBe(1.1252);
    await vi.waitFor(() => expect(rates.toUsd(1, "EUR", "2025-05-09")).toBe(1.2), {
      timeout: 10_000,
    });
    expect(load).toHaveBeenCalledTimes(2);
    expect(rates.lastDate).toBe("2025-05-09");
  });

  it("keeps the table it has when a reload fails, and tries again only after another interval", async () => {
    let clock = 0;
    const errors: unknown[] = [];
    const load = vi
      .fn<() => Promise<ReturnType<typeof parseEcbRates>>>()
      .mockResolvedValueOnce(parseEcbRates(SHIPPED))
      .mockRejectedValue(new Error("S3 down"));
    const rates = await reloadingRates(load, {
      maxAgeMs: 1_000,
      now: () => clock,
      onError: (error) => errors.push(error),
    });
    clock = 1_500;
    rates.toUsd(1, "EUR", "2025-05-09");
    await vi.waitFor(() => expect(errors).toHaveLength(1), { timeout: 10_000 });
    expect(rates.toUsd(1, "EUR", "2025-05-09")).toBe(1.1252);
    clock = 2_000;
    rates.toUsd(1, "EUR", "2025-05-09");
    expect(load).toHaveBeenCalledTimes(2);
    clock = 2_600;
    rates.toUsd(1, "EUR", "2025-05-09");
    expect(load).toHaveBeenCalledTimes(3);
  });

  it("serves the fallback when the first load fails, and tries a load again after the retry interval", async () => {
    let clock = 0;
    const errors: unknown[] = [];
    const stored = SHIPPED.replace("1.1252", "1.3");
    const load = vi
      .fn<() => Promise<ReturnType<typeof parseEcbRates>>>()
      .mockRejectedValueOnce(new Error("S3 InternalError"))
      .mockRejectedValueOnce(new Error("S3 SlowDown"))
      .mockResolvedValue(parseEcbRates(stored));
    const rates = await reloadingRates(load, {
      maxAgeMs: 10_000,
      now: () => clock,
      onError: (error) => errors.push(error),
      fallback: async () => parseEcbRates(SHIPPED),
      retryAfterMs: 100,
    });
    expect(errors).toHaveLength(1);
    expect(rates.toUsd(1, "EUR", "2025-05-09")).toBe(1.1252);
    clock = 100;
    rates.toUsd(1, "EUR", "2025-05-09");
    await vi.waitFor(() => expect(errors).toHaveLength(2), { timeout: 10_000 });
    // Still the fallback after a second failure, and again due after the retry interval, not
    // after the table's usual age.
    expect(rates.toUsd(1, "EUR", "2025-05-09")).toBe(1.1252);
    clock = 200;
    rates.toUsd(1, "EUR", "2025-05-09");
    await vi.waitFor(() => expect(rates.toUsd(1, "EUR", "2025-05-09")).toBe(1.3), {
      timeout: 10_000,
    });
    expect(load).toHaveBeenCalledTimes(3);
    // Loaded: the next load is due after the usual age.
    clock = 300;
    rates.toUsd(1, "EUR", "2025-05-09");
    expect(load).toHaveBeenCalledTimes(3);
  });

  it("waits the table's usual age, not the retry interval, after a first load that succeeds", async () => {
    let clock = 0;
    const load = vi.fn(async () => parseEcbRates(SHIPPED));
    const rates = await reloadingRates(load, {
      maxAgeMs: 10_000,
      now: () => clock,
      fallback: async () => parseEcbRates(SHIPPED),
      retryAfterMs: 100,
    });
    clock = 100;
    rates.toUsd(1, "EUR", "2025-05-09");
    expect(load).toHaveBeenCalledTimes(1);
    clock = 10_000;
    rates.toUsd(1, "EUR", "2025-05-09");
    expect(load).toHaveBeenCalledTimes(2);
  });

  it("fails with the first load when it has no fallback", async () => {
    await expect(
      reloadingRates(async () => Promise.reject(new Error("S3 down")), { maxAgeMs: 1_000 }),
    ).rejects.toThrow("S3 down");
  });
});

describe("ratesFrom", () => {
  it("answers every question from the table in place now, replaced under its readers", () => {
    let table = parseEcbRates(SHIPPED);
    const rates = ratesFrom(() => table);
    expect([rates.firstDate, rates.lastDate]).toEqual(["2025-05-08", "2025-05-09"]);
    expect(rates.currencies).toEqual(expect.arrayContaining(["EUR", "JPY"]));
    table = parseEcbRates("Date,USD,GBP,\n2026-11-20,1.06,0.87,\n");
    expect([rates.firstDate, rates.lastDate]).toEqual(["2026-11-20", "2026-11-20"]);
    expect(rates.currencies).toEqual(expect.arrayContaining(["EUR", "GBP"]));
    expect(rates.currencies).not.toContain("JPY");
    expect(rates.toUsd(1, "EUR", "2026-11-20")).toBe(1.06);
  });
});
