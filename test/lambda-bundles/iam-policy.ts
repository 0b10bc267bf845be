/**
 * IAM's verdict on one request, from a role's policy statements as the template holds them
 * (their values already resolved to strings): allowed when an Allow statement names the action
 * and the resource and its conditions hold, and no Deny statement does. Only the conditions the
 * stack's statements use are read (`ForAllValues:StringLike` on `dynamodb:LeadingKeys`,
 * `StringEquals` on a single-valued key such as KMS's encryption context); a statement with any
 * other condition fails the check loudly rather than be guessed at.
 */

export interface Statement {
  readonly Effect: "Allow" | "Deny";
  readonly Action: readonly string[];
  readonly Resource: readonly string[];
  readonly Condition?: Record<string, Record<string, string | readonly string[]>>;
}

/** One authorization a request needs, as IAM evaluates it. */
export interface Authorization {
  /** `dynamodb:GetItem` */
  readonly action: string;
  /** The table's (or index's) ARN. */
  readonly resource: string;
  /** The partition key values the request names (`dynamodb:LeadingKeys`); none for a scan. */
  readonly leadingKeys: readonly string[];
  /** The single values other condition keys read (`kms:EncryptionContext:purpose`). */
  readonly conditionValues?: Readonly<Record<string, string>>;
}

/** IAM's wildcards: `*` any run of characters, `?` one; matching is case-sensitive. */
const matches = (pattern: string, value: string): boolean =>
  new RegExp(
    `^${pattern
      .split("")
      .map((c) => (c === "*" ? ".*" : c === "?" ? "." : c.replace(/[\\^$.|+()[\]{}]/g, "\\$&")))
      .join("")}$`,
    "s",
  ).test(value);

/** Action names are case-insensitive in IAM. */
const actionMatches = (pattern: string, action: string) =>
  matches(pattern.toLowerCase(), action.toLowerCase());

const conditionHolds = (condition: Statement["Condition"], request: Authorization): boolean => {
  for (const [operator, keys] of Object.entries(condition ?? {})) {
    for (const [key, patterns] of Object.entries(keys)) {
      if (operator === "StringEquals") {
        // A key the request does not carry fails it, as IAM has it.
        const value = request.conditionValues?.[key];
        if (value === undefined || ![patterns].flat().includes(value)) return false;
        continue;
      }
      if (operator !== "ForAllValues:StringLike" || key !== "dynamodb:LeadingKeys") {
        throw new Error(`The check does not read the condition ${operator} ${key}`);
      }
      // ForAllValues over no values holds: a request naming no partition key passes it.
      const all = request.leadingKeys.every((value) =>
        [patterns].flat().some((pattern) => matches(pattern, value)),
      );
      if (!all) return false;
    }
  }
  return true;
};

const applies = (statement: Statement, request: Authorization): boolean =>
  statement.Action.some((action) => actionMatches(action, request.action)) &&
  statement.Resource.some((resource) => matches(resource, request.resource)) &&
  conditionHolds(statement.Condition, request);

export const isAllowedBy = (statements: readonly Statement[], request: Authorization): boolean =>
  statements.some((s) => s.Effect === "Allow" && applies(s, request)) &&
  !statements.some((s) => s.Effect === "Deny" && applies(s, request));
