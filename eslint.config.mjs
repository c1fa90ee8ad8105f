// Lint: typescript-eslint's recommended rules plus the layer rules of docs/architecture.md ("Layers").
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const noVscode = { name: 'vscode', message: 'Only src/host may import vscode at run time (docs/architecture.md, "Layers").' };
const nodeIo = ['fs', 'fs/promises', 'node:fs', 'node:fs/promises', 'child_process', 'node:child_process', 'net', 'node:net', 'http', 'node:http', 'https', 'node:https']
  .map((name) => ({ name, message: 'src/core is pure: no I/O (docs/architecture.md, "Layers"). Put adapters in src/node.' }));

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'out/**', '.tools/**', 'test-results/**', '.vscode-test/**', 'demo/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-non-null-assertion': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-syntax': ['error', { selector: 'TSImportType[argument.literal.value="vscode"]', message: 'Use src/host for vscode types.' }],
    },
  },
  {
    files: ['src/core/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { paths: [noVscode, ...nodeIo], patterns: [{ group: ['**/node/**', '**/host/**', '**/cli/**'], message: 'src/core depends on nothing but itself and src/shared.' }] }],
    },
  },
  {
    files: ['src/node/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { paths: [noVscode], patterns: [{ group: ['**/host/**'], message: 'Only src/host may depend on src/host.' }, { group: ['**/cli/**'], message: 'src/cli is a front end over src/node: the adapters may not depend on it.' }] }],
    },
  },
  {
    files: ['src/cli/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { paths: [noVscode], patterns: [{ group: ['**/host/**'], message: 'Only src/host may depend on src/host.' }] }],
    },
  },
  {
    files: ['src/shared/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { paths: [noVscode], patterns: [{ group: ['**/core/**', '**/node/**', '**/host/**', '**/cli/**', 'node:*'], message: 'src/shared is the host↔webview protocol: zod and itself only.' }] }],
    },
  },
  {
    files: ['webview/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', { paths: [noVscode], patterns: [{ group: ['**/src/core/**', '**/src/node/**', '**/src/host/**', '**/src/cli/**', 'node:*'], message: 'webview/ imports only src/shared (docs/architecture.md, "Layers").' }] }],
    },
  },
  {
    // What package.json contributes is registered by the boot's proxies (src/host/boot.ts); features
    // hand their handlers over through src/host/contrib.ts, or VS Code refuses the second registration.
    files: ['src/host/**/*.ts'],
    ignores: ['src/host/boot.ts', 'src/host/contrib.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: 'TSImportType[argument.literal.value="vscode"]', message: 'Use src/host for vscode types.' },
        {
          selector: "MemberExpression[object.object.name='vscode'][property.name=/^(registerCommand|registerTool|createChatParticipant|registerWebviewViewProvider|registerUriHandler|registerLanguageModelChatProvider)$/]",
          message: 'Register through contrib (src/host/contrib.ts): the boot owns the contributed ids.',
        },
      ],
    },
  },
  {
    files: ['**/*.mjs', '**/*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly' } },
  },
);
