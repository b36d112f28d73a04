/**
 * The shape the code is held to: no function in src/ over 150 lines (one that long does several jobs, and
 * the next engineer reads it whole to change one), and no exported interface over 12 methods (a seam that
 * wide is several seams). Read with the TypeScript compiler's parser, so a function is what TypeScript
 * says it is: declarations, methods, arrows and function expressions, each counted on its own lines.
 */
import { describe, it, expect } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const SRC = path.resolve(import.meta.dirname, '../../src');
const MAX_FUNCTION_LINES = 150;
const MAX_INTERFACE_METHODS = 12;

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return /\.ts$/.test(e.name) && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

interface Finding { where: string; size: number }

function shapeOf(file: string): { functions: Finding[]; interfaces: Finding[] } {
  const text = fs.readFileSync(file, 'utf8');
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const functions: Finding[] = [];
  const interfaces: Finding[] = [];
  const line = (pos: number) => sf.getLineAndCharacterOfPosition(pos).line;
  const rel = path.relative(SRC, file);
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const lines = line(node.getEnd()) - line(node.getStart(sf)) + 1;
      if (lines > MAX_FUNCTION_LINES) {
        const name = node.name && ts.isIdentifier(node.name) ? node.name.text : '(anonymous)';
        functions.push({ where: `${rel}:${line(node.getStart(sf)) + 1} ${name}`, size: lines });
      }
    }
    if (ts.isInterfaceDeclaration(node) && node.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) {
      const methods = node.members.filter((m) => ts.isMethodSignature(m) || (ts.isPropertySignature(m) && m.type !== undefined && ts.isFunctionTypeNode(m.type))).length;
      if (methods > MAX_INTERFACE_METHODS) interfaces.push({ where: `${rel} ${node.name.text}`, size: methods });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return { functions, interfaces };
}

describe('the shape of src/', () => {
  const all = sources(SRC).map(shapeOf);

  it(`has no function over ${MAX_FUNCTION_LINES} lines`, () => {
    expect(all.flatMap((s) => s.functions).map((f) => `${f.where}: ${f.size} lines`)).toEqual([]);
  });

  it(`has no exported interface over ${MAX_INTERFACE_METHODS} methods`, () => {
    expect(all.flatMap((s) => s.interfaces).map((f) => `${f.where}: ${f.size} methods`)).toEqual([]);
  });
});
