/**
 * cdk-nag 3 acknowledgements. Version 3 runs as a policy-validation plugin and reads
 * acknowledgements recorded with `Validations.of(construct).acknowledge`; a granular finding
 * (IAM4/IAM5) is acknowledged by its exact id `RuleId[Finding]`, so these helpers build that id
 * the way the rule prints it, and every acknowledgement carries its reason next to the code.
 */
import { Stack, Validations } from "aws-cdk-lib";
import type { IConstruct } from "constructs";

export const acknowledge = (scope: IConstruct, id: string, reason: string): void => {
  Validations.of(scope).acknowledge({ id, reason });
};

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** A resolved CloudFormation value printed as cdk-nag prints it: `<Logical.Arn>/prefix/*`. */
const flatten = (value: unknown): string => {
  if (typeof value === "string") return value.replace(/\$\{/g, "<").replace(/\}/g, ">");
  if (isObject(value)) {
    const join = value["Fn::Join"];
    if (Array.isArray(join)) {
      const [delimiter, items] = join;
      if (typeof delimiter === "string" && Array.isArray(items)) {
        return items.map(flatten).join(delimiter);
      }
    }
    const getAtt = value["Fn::GetAtt"];
    if (Array.isArray(getAtt)) return `<${flatten(getAtt[0])}.${flatten(getAtt[1])}>`;
    if ("Ref" in value) return `<${flatten(value.Ref)}>`;
    if ("Fn::Sub" in value) return flatten(value["Fn::Sub"]);
  }
  return JSON.stringify(value);
};

/** Acknowledges one wildcard resource (IAM5) on a role or policy, and nothing else. */
export const acknowledgeWildcardResource = (
  scope: IConstruct,
  resource: string,
  reason: string,
): void => {
  const printed = flatten(Stack.of(scope).resolve(resource));
  acknowledge(scope, `AwsSolutions-IAM5[Resource::${printed}]`, reason);
};
