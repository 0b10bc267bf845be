import {
  AthenaClient,
  GetQueryExecutionCommand,
  StartQueryExecutionCommand,
} from "@aws-sdk/client-athena";
import { mockClient } from "aws-sdk-client-mock";
import { describe, expect, it } from "vitest";
import { createFakeS3 } from "./fake-s3.test-support.ts";
import { athenaLinkClicks } from "./link-clicks.ts";

/** An Athena whose every query succeeds, its result at s3://results/clicks/q1.csv. */
const athenaAnswering = () => {
  const athena = new AthenaClient({ region: "eu-west-1" });
  const athenaMock = mockClient(athena);
  athenaMock.on(StartQueryExecutionCommand).resolves({ QueryExecutionId: "q1" });
  athenaMock.on(GetQueryExecutionCommand).resolves({
    QueryExecution: {
      Status: { State: "SUCCEEDED" },
      ResultConfiguration: { OutputLocation: "s3://results/clicks/q1.csv" },
    },
  });
  return { athena, athenaMock, s3: createFakeS3() };
};

describe("athenaLinkClicks", () => {
  it("counts one app's link taps in the touches table and reads the counts back", async () => {
    const { athena, athenaMock, s3 } = athenaAnswering();
    s3.put(
      "results",
      "clicks/q1.csv",
      '"deeplink_id","clicks"\n"Kx3v9QpZ2aQ","12"\n"AAAAAAAAAAA","1"\n',
    );

    const counts = await athenaLinkClicks({
      athena,
      s3: s3.client,
      workGroup: "exports",
      database: "lake",
      pollIntervalMs: 1,
    })("com.example.o'game");

    expect(counts).toEqual(
      new Map([
        ["Kx3v9QpZ2aQ", 12],
        ["AAAAAAAAAAA", 1],
      ]),
    );
    const [start] = athenaMock.commandCalls(StartQueryExecutionCommand);
    const input = start?.args[0].input;
    expect(input?.WorkGroup).toBe("exports");
    expect(input?.QueryExecutionContext?.Database).toBe("lake");
    expect(input?.QueryString).toContain('FROM "touches"');
    expect(input?.QueryString).toContain("app_id = 'com.example.o''game'");
    expect(input?.QueryString).toContain("source = 'link' AND touch_type = 'click'");
  });

  it("asks Athena anew each time: counts are never an earlier answer", async () => {
    const { athena, athenaMock, s3 } = athenaAnswering();
    s3.put("results", "clicks/q1.csv", '"deeplink_id","clicks"\n"Kx3v9QpZ2aQ","3"\n');
    const count = athenaLinkClicks({
      athena,
      s3: s3.client,
      workGroup: "exports",
      database: "lake",
      pollIntervalMs: 1,
    });
    await count("com.example.game");
    await count("com.example.game");

    const starts = athenaMock
      .commandCalls(StartQueryExecutionCommand)
      .map((call) => call.args[0].input);
    expect(starts).toHaveLength(2);
    // The same token would make Athena hand back the first run; reuse would serve its result.
    expect(starts[0]?.ClientRequestToken).not.toBe(starts[1]?.ClientRequestToken);
    for (const start of starts)
      expect(start.ResultReuseConfiguration?.ResultReuseByAgeConfiguration?.Enabled ?? false).toBe(
        false,
      );
  });
});
