import ts from 'typescript';
import fs from 'node:fs';
for (const f of process.argv.slice(2)) {
  const src = ts.createSourceFile(f, fs.readFileSync(f,'utf8'), ts.ScriptTarget.Latest, true);
  const visit = (n) => {
    if (ts.isFunctionDeclaration(n) || ts.isArrowFunction(n) || ts.isMethodDeclaration(n) || ts.isFunctionExpression(n)) {
      const a = src.getLineAndCharacterOfPosition(n.getStart()).line, b = src.getLineAndCharacterOfPosition(n.getEnd()).line;
      if (b - a + 1 > 40) console.log(b-a+1, f, a+1, n.name?.getText?.() ?? '');
    }
    ts.forEachChild(n, visit);
  };
  visit(src);
}
