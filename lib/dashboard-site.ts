/**
 * The dashboard on AWS: its built files (dashboard/dist) in a private S3 bucket behind a
 * CloudFront distribution (origin access control: only the distribution reads the bucket),
 * which also forwards `/v1/*` and `/api/*` to the API uncached. Page and API share one origin,
 * so the session cookie is first-party and `SameSite=Strict`, and no CORS is needed. The same
 * security headers as the embedded runtime sends (src/http/dashboard-headers.ts).
 */
import { DefaultStackSynthesizer, Duration, RemovalPolicy, Stack } from "aws-cdk-lib";
import type { RestApi } from "aws-cdk-lib/aws-apigateway";
import {
  AllowedMethods,
  CachePolicy,
  CacheQueryStringBehavior,
  Distribution,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  OriginRequestPolicy,
  ResponseHeadersPolicy,
  ViewerProtocolPolicy,
} from "aws-cdk-lib/aws-cloudfront";
import { RestApiOrigin, S3BucketOrigin } from "aws-cdk-lib/aws-cloudfront-origins";
import type { IRole } from "aws-cdk-lib/aws-iam";
import { LogGroup, type RetentionDays } from "aws-cdk-lib/aws-logs";
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from "aws-cdk-lib/aws-s3";
import { BucketDeployment, CacheControl, Source } from "aws-cdk-lib/aws-s3-deployment";
import { Construct } from "constructs";
import { dashboardDist } from "../dashboard/dist-path.ts";
import {
  CONTENT_SECURITY_POLICY,
  dashboardCacheControl,
  DASHBOARD_PAGE as PAGE,
} from "../src/http/dashboard-headers.ts";
import { acknowledge, acknowledgeWildcardResource } from "./nag.ts";
import { DEFAULT_SETTINGS } from "./settings.ts";

export interface DashboardSiteProps {
  readonly api: RestApi;
  /** The bucket that receives the distribution's and the site bucket's access logs. */
  readonly logsBucket: Bucket;
  /** The CLOUDFRONT-scope web ACL of the distribution, if any (lib/web-acl.ts). */
  readonly webAclArn?: string | null;
  /**
   * Retention of the log group of CDK's deployment function. Without one of the stack's own,
   * Lambda makes `/aws/lambda/<function>` itself on the first deploy, outside the stack: kept
   * forever, whatever the setting logRetention.
   */
  readonly logRetention?: RetentionDays;
}

const DEPLOYMENT_REASON =
  "CDK's BucketDeployment function: it runs only while the stack deploys, copying the dashboard's built files from the CDK asset bucket into the site bucket and invalidating the distribution; CDK writes its role and runtime.";

/** Acknowledges cdk-nag's findings on CDK's deployment function, and on nothing else. */
const acknowledgeDeployment = (scope: Construct, deployment: BucketDeployment) => {
  const role = deployment.handlerRole;
  for (const finding of [
    "AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]",
    "AwsSolutions-IAM5[Action::s3:GetObject*]",
    "AwsSolutions-IAM5[Action::s3:GetBucket*]",
    "AwsSolutions-IAM5[Action::s3:List*]",
    "AwsSolutions-IAM5[Action::s3:DeleteObject*]",
    "AwsSolutions-IAM5[Action::s3:Abort*]",
    "AwsSolutions-IAM5[Resource::*]",
  ]) {
    acknowledge(role, finding, DEPLOYMENT_REASON);
  }
  const stack = Stack.of(scope);
  // The bootstrap's asset bucket, named as the default synthesizer names it.
  const assets = DefaultStackSynthesizer.DEFAULT_FILE_ASSETS_BUCKET_NAME.replace(
    "${Qualifier}",
    stack.synthesizer.bootstrapQualifier ?? DefaultStackSynthesizer.DEFAULT_QUALIFIER,
  )
    .replace("${AWS::AccountId}", stack.account)
    .replace("${AWS::Region}", stack.region);
  acknowledgeWildcardResource(role, `arn:${stack.partition}:s3:::${assets}/*`, DEPLOYMENT_REASON);
  acknowledgeWildcardResource(
    role,
    `${(scope as DashboardSite).bucket.bucketArn}/*`,
    DEPLOYMENT_REASON,
  );
  // The function itself is a singleton at the stack's root.
  const handler = stack.node.children.find((child) =>
    child.node.id.startsWith("Custom::CDKBucketDeployment"),
  );
  if (handler) acknowledge(handler, "AwsSolutions-L1", DEPLOYMENT_REASON);
};

/** The API's paths, forwarded by the distribution to the API's stage. */
export const API_PATHS = ["/v1/*", "/api/*"] as const;

export class DashboardSite extends Construct {
  readonly bucket: Bucket;
  readonly distribution: Distribution;
  /**
   * The role of CDK's own deployment function, which copies the built files into the bucket
   * at deploy time: CDK writes its policy (S3 wildcard actions on the asset and site buckets,
   * CloudFront invalidation), and no request ever reaches it.
   */
  readonly deploymentRole: IRole;

  constructor(scope: Construct, id: string, props: DashboardSiteProps) {
    super(scope, id);
    this.bucket = new Bucket(this, "Files", {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      enforceSSL: true,
      // Kept with the stack's other buckets; its files are made again by every deployment.
      removalPolicy: RemovalPolicy.RETAIN,
      serverAccessLogsBucket: props.logsBucket,
      serverAccessLogsPrefix: "dashboard-files/",
    });

    const headers = new ResponseHeadersPolicy(this, "SecurityHeaders", {
      securityHeadersBehavior: {
        contentSecurityPolicy: { contentSecurityPolicy: CONTENT_SECURITY_POLICY, override: true },
        contentTypeOptions: { override: true },
        frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
        referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.SAME_ORIGIN, override: true },
        strictTransportSecurity: {
          accessControlMaxAge: Duration.days(365),
          includeSubdomains: true,
          override: true,
        },
      },
    });

    // The page names its script and style with their content's hash (`/app.js?v=<hash>`), and a
    // deploy replaces the files under the same names: the hash is in the edge's cache key, so a
    // new page never gets the old files an edge kept (CACHING_OPTIMIZED leaves queries out).
    const files = new CachePolicy(this, "HashedFiles", {
      comment: "Dashboard files, cached by path and their content hash (?v=)",
      queryStringBehavior: CacheQueryStringBehavior.allowList("v"),
      enableAcceptEncodingGzip: true,
      enableAcceptEncodingBrotli: true,
      minTtl: Duration.seconds(1),
      defaultTtl: Duration.days(1),
      maxTtl: Duration.days(365),
    });

    // The longest wait for a first byte CloudFront takes without a quota increase (30 s by
    // default): an export's first page answers once its snapshot is made, which can take longer.
    const api = new RestApiOrigin(props.api, { readTimeout: Duration.seconds(60) });
    this.distribution = new Distribution(this, "Distribution", {
      comment: "Attribution service dashboard",
      defaultRootObject: PAGE,
      defaultBehavior: {
        origin: S3BucketOrigin.withOriginAccessControl(this.bucket),
        viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        responseHeadersPolicy: headers,
        cachePolicy: files,
      },
      additionalBehaviors: Object.fromEntries(
        API_PATHS.map((path) => [
          path,
          {
            origin: api,
            viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
            allowedMethods: AllowedMethods.ALLOW_ALL,
            // Every answer is a person's or an app's own: never cached at the edge.
            cachePolicy: CachePolicy.CACHING_DISABLED,
            originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
          },
        ]),
      ),
      ...(props.webAclArn && { webAclId: props.webAclArn }),
      enableLogging: true,
      logBucket: props.logsBucket,
      logFilePrefix: "dashboard-cdn/",
    });

    // Built at `npm install`, and sent with the embedded runtime's Cache-Control. The page's
    // script, style and icon go first; then the page. In that order, a new page never asks for a hash whose file is not there yet, which the
    // edge would otherwise keep, old, under the new hash for a day.
    const source = Source.asset(dashboardDist);
    // Both deployments run on one function (a singleton, made by the first), which logs here.
    const deploymentLogs = new LogGroup(this, "DeploymentLogs", {
      retention: props.logRetention ?? DEFAULT_SETTINGS.logRetention,
    });
    const hashedFiles = new BucketDeployment(this, "Deploy", {
      sources: [source],
      logGroup: deploymentLogs,
      destinationBucket: this.bucket,
      exclude: [PAGE],
      cacheControl: [CacheControl.fromString(dashboardCacheControl("app.js"))],
    });
    const page = new BucketDeployment(this, "DeployPage", {
      sources: [source],
      destinationBucket: this.bucket,
      exclude: ["*"],
      include: [PAGE],
      logGroup: deploymentLogs,
      // The files deployment prunes; this one must not remove what it leaves out.
      prune: false,
      cacheControl: [CacheControl.fromString(dashboardCacheControl(PAGE))],
      distribution: this.distribution,
      // The edge keeps the default root object under the root's path as well as its own.
      distributionPaths: ["/", `/${PAGE}`],
    });
    page.node.addDependency(hashedFiles);
    this.deploymentRole = hashedFiles.handlerRole;
    acknowledgeDeployment(this, hashedFiles);

    acknowledge(
      this.distribution,
      "AwsSolutions-CFR1",
      "No geo restriction: the dashboard's people may be anywhere, and every call needs a session.",
    );
    if (!props.webAclArn) {
      acknowledge(
        this.distribution,
        "AwsSolutions-CFR2",
        "No CloudFront web ACL was given (-c edgeWebAclArn, made by lib/web-acl.ts's stack in us-east-1): the API behind it has its own regional web ACL and throttles.",
      );
    }
    acknowledge(
      this.distribution,
      "AwsSolutions-CFR4",
      "The distribution's default certificate (*.cloudfront.net) fixes the minimum TLS version; a custom domain with its own certificate would set TLSv1.2_2021.",
    );
    acknowledge(
      this.distribution,
      "AwsSolutions-CFR7",
      "The S3 origin uses origin access control (S3BucketOrigin.withOriginAccessControl), which this rule predates.",
    );
  }

  /** The dashboard's URL. */
  get url(): string {
    return `https://${this.distribution.distributionDomainName}/`;
  }
}
