/**
 * The Athena workgroup the export runs in. Its settings are enforced, so a client cannot
 * send results elsewhere, unencrypted, or scan without the per-query cut-off.
 */
import { Names, type Size, Stack } from "aws-cdk-lib";
import { CfnWorkGroup } from "aws-cdk-lib/aws-athena";
import type { IRole } from "aws-cdk-lib/aws-iam";
import { PolicyStatement } from "aws-cdk-lib/aws-iam";
import type { IBucket } from "aws-cdk-lib/aws-s3";
import { Construct } from "constructs";
import { DEFAULT_SETTINGS } from "./settings.ts";

export const ATHENA_ENGINE_VERSION = "Athena engine version 3";

/** Where in the results bucket the workgroup writes query results (export snapshots). */
export const RESULTS_PREFIX = "athena/";

export interface QueryWorkgroupProps {
  readonly resultsBucket: IBucket;
  /** A runaway query is cancelled past this many bytes scanned (and billed). */
  readonly bytesScannedCutoffPerQuery?: Size;
}

export class QueryWorkgroup extends Construct {
  readonly workGroup: CfnWorkGroup;
  readonly workGroupName: string;
  readonly workGroupArn: string;

  constructor(scope: Construct, id: string, props: QueryWorkgroupProps) {
    super(scope, id);
    // A workgroup must be named; derive a unique name from the construct path.
    this.workGroupName = Names.uniqueResourceName(this, {
      maxLength: 128,
      separator: "-",
      allowedSpecialCharacters: "-_.",
    });
    const cutoff = props.bytesScannedCutoffPerQuery ?? DEFAULT_SETTINGS.bytesScannedCutoffPerQuery;
    this.workGroup = new CfnWorkGroup(this, "WorkGroup", {
      name: this.workGroupName,
      description: "Export queries over the attribution lake.",
      state: "ENABLED",
      // Lets the stack delete the workgroup even when it holds saved queries.
      recursiveDeleteOption: true,
      workGroupConfiguration: {
        enforceWorkGroupConfiguration: true,
        engineVersion: { selectedEngineVersion: ATHENA_ENGINE_VERSION },
        publishCloudWatchMetricsEnabled: true,
        bytesScannedCutoffPerQuery: cutoff.toBytes(),
        requesterPaysEnabled: false,
        resultConfiguration: {
          outputLocation: props.resultsBucket.s3UrlForObject(RESULTS_PREFIX),
          encryptionConfiguration: { encryptionOption: "SSE_S3" },
          expectedBucketOwner: Stack.of(this).account,
        },
      },
    });
    this.workGroupArn = Stack.of(this).formatArn({
      service: "athena",
      resource: "workgroup",
      resourceName: this.workGroupName,
    });
  }

  /** Run, watch, read and stop queries in this workgroup only. */
  grantRunQueries(role: IRole): void {
    role.addToPrincipalPolicy(
      new PolicyStatement({
        actions: [
          "athena:StartQueryExecution",
          "athena:GetQueryExecution",
          "athena:GetQueryResults",
          "athena:GetQueryRuntimeStatistics",
          "athena:StopQueryExecution",
        ],
        resources: [this.workGroupArn],
      }),
    );
  }
}
