/**
 * Test helpers for the CDK constructs. Function bundling is skipped (the `bundling-stacks`
 * context left empty) so a whole stack synthesizes in a second or two; lib/app.test.ts bundles the
 * real entries once.
 */
import { mkdtempSync } from "node:fs";
import { join } from "node:path";
import { App, type NestedStack, Stack } from "aws-cdk-lib";
import { Template } from "aws-cdk-lib/assertions";
import type { IRole } from "aws-cdk-lib/aws-iam";
import { inject } from "vitest";
import { ServiceStack, type ServiceStackProps } from "./service-stack.ts";

export const TEST_ENV = { account: "123456789012", region: "eu-west-1" } as const;

/**
 * No synth at the process's exit: CDK_OUTDIR (./cdk-outdir.test-support.ts) would otherwise make
 * every App of a test file queue one, and Node warns past ten such listeners.
 */
export const NO_EXIT_SYNTH = { autoSynth: false } as const;

export const testApp = (outdir?: string): App =>
  new App({
    ...NO_EXIT_SYNTH,
    context: { "aws:cdk:bundling-stacks": [] },
    ...(outdir ? { outdir } : {}),
  });

export const testStack = (): Stack => new Stack(testApp(), "Test", { env: TEST_ENV });

export const synthServiceStack = (
  props: ServiceStackProps = {},
  app: App = testApp(),
): { app: App; stack: ServiceStack; template: Template } => {
  const stack = new ServiceStack(app, "Attribution", { env: TEST_ENV, ...props });
  return { app, stack, template: Template.fromStack(stack) };
};

let shared: ReturnType<typeof synthServiceStack> | undefined;

/**
 * The stack with its default settings, synthesized once per test process and shared by the
 * files that only read it (a file that adds to its stack makes its own with
 * `synthServiceStack`): most of the suite's CDK tests look at the same stack.
 */
export const sharedServiceStack = (): ReturnType<typeof synthServiceStack> => {
  if (!shared) {
    // A folder in the run's (./cdk-outdir.global-setup.ts), which outlives each file's: a
    // nested stack's template is read from it by whichever file asks.
    shared = synthServiceStack({}, testApp(mkdtempSync(join(inject("cdkOutRoot"), "shared-"))));
  }
  return shared;
};

type Json = Record<string, unknown>;

/** The logical id, in its parent's template, of the resource that is a nested stack. */
export const nestedStackIdOf = (nested: NestedStack): string => {
  const parent = nested.nestedStackParent;
  const resource = nested.nestedStackResource;
  if (!parent || !resource) throw new Error(`${nested.node.path} is not a nested stack`);
  return parent.getLogicalId(resource);
};

/**
 * A value of the parent stack as the nested stack's template holds it: CDK passes each
 * reference from the parent as a parameter of the nested stack, so a token becomes a `Ref` to
 * the parameter the parent gives it; a literal stays itself.
 */
export const seenFrom = (
  nested: NestedStack,
  parentTemplate: Template,
  value: unknown,
): unknown => {
  const parent = nested.nestedStackParent;
  if (!parent) throw new Error(`${nested.node.path} is not a nested stack`);
  const resolved = parent.resolve(value);
  if (typeof resolved === "string") return resolved;
  const resource = parentTemplate.toJSON().Resources[nestedStackIdOf(nested)];
  const parameters = propertiesOf(resource).Parameters;
  const passed = Object.entries(isJson(parameters) ? parameters : {}).find(
    ([, given]) => JSON.stringify(given) === JSON.stringify(resolved),
  );
  if (!passed) throw new Error(`${JSON.stringify(resolved)} is not passed to ${nested.node.path}`);
  return { Ref: passed[0] };
};

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
