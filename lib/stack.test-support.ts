/**
 * Test helpers for the CDK constructs. Function bundling is skipped (the `bundling-stacks`
 * context left empty) so a whole stack synthesizes in a second or two; lib/app.test.ts bundles the
 * real entries once.
 */
import { App, Stack } from "aws-cdk-lib";
import { Template } from "aws-cdk-lib/assertions";
import type { IRole } from "aws-cdk-lib/aws-iam";
import { ServiceStack, type ServiceStackProps } from "./service-stack.ts";

export const TEST_ENV = { account: "123456789012", region: "eu-west-1" } as const;

export const testApp = (): App => new App({ context: { "aws:cdk:bundling-stacks": [] } });

export const testStack = (): Stack => new Stack(testApp(), "Test", { env: TEST_ENV });

export const synthServiceStack = (
  props: ServiceStackProps = {},
): { app: App; stack: ServiceStack; template: Template } => {
  const app = testApp();
  const stack = new ServiceStack(app, "Attribution", { env: TEST_ENV, ...props });
  return { app, stack, template: Template.fromStack(stack) };
};

type Json = Record<string, unknown>;

/** Every statement of every IAM policy attached to the role. */
export const statementsOfRole = (template: Template, role: IRole): Json[] => {
  const ref = JSON.stringify(Stack.of(role).resolve(role.roleName));
  const policies = Object.values(template.findResources("AWS::IAM::Policy"));
  const attached = policies.filter((policy) =>
    asArray(propertiesOf(policy).Roles).some((r) => JSON.stringify(r) === ref),
  );
  return attached.flatMap((policy) => {
    const document = propertiesOf(policy).PolicyDocument;
    const statements = isJson(document) ? document.Statement : undefined;
    return Array.isArray(statements) ? statements.filter(isJson) : [];
  });
};

export const isJson = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

export const propertiesOf = (resource: unknown): Json => {
  const properties = isJson(resource) ? resource.Properties : undefined;
  return isJson(properties) ? properties : {};
};

export const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : [value]);

/** The actions of a statement, always as an array of strings. */
export const actionsOf = (statement: Json): string[] =>
  asArray(statement.Action).filter((a): a is string => typeof a === "string");

/** What a scheduled job's function may do in SQS: send a failed run to its failure queue. */
export const FAILURE_DESTINATION = new Set([
  "sqs:SendMessage",
  "sqs:GetQueueAttributes",
  "sqs:GetQueueUrl",
]);
