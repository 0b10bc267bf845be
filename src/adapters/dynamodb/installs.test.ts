import { ConditionalCheckFailedException } from "@aws-sdk/client-dynamodb";
import { GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { createInstallStore } from "./installs.ts";

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
});
