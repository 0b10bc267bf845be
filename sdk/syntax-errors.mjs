// The syntax errors of a tree-sitter tree, for the SDKs' checks of the languages this machine
// cannot compile (Dart, Swift, Objective-C): its ERROR and MISSING nodes, with line and column.
export const syntaxErrors = (tree, file) => {
  const found = [];
  const visit = (node) => {
    if (node.type === "ERROR" || node.isMissing) {
      const { row, column } = node.startPosition;
      const what = node.isMissing
        ? `missing ${node.type}`
        : `unexpected '${node.text.slice(0, 40)}'`;
      found.push(`${file}:${row + 1}:${column + 1}: ${what}`);
      return;
    }
    if (node.hasError) for (const child of node.children) visit(child);
  };
  visit(tree.rootNode);
  return found;
};
