import { ConditionalCheckFailedException } from "@aws-sdk/client-dynamodb";
import { GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { createCustomerUserMap, createInstallStore } from "./installs.ts";

describe("the DynamoDB install store's requests", () => {
  it("reads an install with strong consistency: one stored a moment ago is found", async () => {
    const sent: unknown[] = [];
    const doc = {
      send: async (command: unknown) => {
        sent.push(command);
        // A repeat of the first open: the put's condition fails, then the stored one is read.
        if (command instanceof PutCommand) {
          throw new ConditionalCheckFailedException({ message: "exists", $metadata: {} });
        }
        return {};
      },
    } as unknown as Parameters<typeof createInstallStore>[0];
    const installs = createInstallStore(doc, "installs");
    await installs.get("com.a", "s1");
    await installs.putIfAbsent({ appId: "com.a", serviceId: "s1" } as never).catch(() => {});
    const reads = sent.filter((command) => command instanceof GetCommand);
    expect(reads).toHaveLength(2);
    for (const read of reads) expect((read as GetCommand).input.ConsistentRead).toBe(true);
  });

  it("fails a repeat whose first install is gone by the time it is read", async () => {
    const doc = {
      send: async (command: unknown) => {
        if (command instanceof PutCommand) {
          throw new ConditionalCheckFailedException({ message: "exists", $metadata: {} });
        }
        return {};
      },
    } as unknown as Parameters<typeof createInstallStore>[0];
    await expect(
      createInstallStore(doc, "installs").putIfAbsent({ appId: "com.a", serviceId: "s1" } as never),
    ).rejects.toThrow("install s1 went while it was being stored");
  });
});

describe("the DynamoDB customer-user map's requests", () => {
  it("reads the use that stands against a write with strong consistency", async () => {
    const sent: unknown[] = [];
    const doc = {
      send: async (command: unknown) => {
        sent.push(command);
        if (command instanceof PutCommand && command.input.ReturnValues === "ALL_OLD") {
          throw new ConditionalCheckFailedException({ message: "later", $metadata: {} });
        }
        if (command instanceof GetCommand) {
          return { Item: { serviceId: "s1", seenAt: "2026-11-02T00:00:00.000Z" } };
        }
        return {};
      },
    } as unknown as Parameters<typeof createCustomerUserMap>[0];
    expect(
      await createCustomerUserMap(doc, "users").put(
        "com.a",
        "u1",
        "s1",
        "2026-11-01T00:00:00.000Z",
      ),
    ).toEqual({ serviceId: "s1", seenAt: "2026-11-02T00:00:00.000Z" });
    const reads = sent.filter((command) => command instanceof GetCommand);
    expect(reads).toHaveLength(1);
    expect((reads[0] as GetCommand).input.ConsistentRead).toBe(true);
  });
});
