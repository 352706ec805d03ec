// Lint rules for the whole workspace: typescript-eslint's recommended set, and no console.log in
// apps/ (stdout of a stdio server carries protocol only; logs go to stderr).
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/dist/**', 'apps/*/bundle/**', '**/node_modules/**', '**/coverage/**', '**/*.d.ts'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  { files: ['apps/*/src/**/*.ts'], rules: { 'no-console': ['error', { allow: ['error', 'warn'] }] } },
  // CommonJS scripts (the bundles' loader, the `deputy` entry) load modules with require.
  { files: ['**/*.cjs', '**/*.cts'], rules: { '@typescript-eslint/no-require-imports': 'off' } },
  { files: ['apps/*/src/**/*.cts'], rules: { 'no-console': ['error', { allow: ['error', 'warn'] }] } },
);
