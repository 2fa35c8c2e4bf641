import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { layerLintRules } from './scripts/layers.mjs';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'test-output/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setImmediate: 'readonly', URL: 'readonly' },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    // A dropped promise loses its rejection; these rules need type information.
    files: ['src/**/*.ts', 'bench/**/*.ts', 'test/**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
    },
  },
  {
    // Work nobody waits for says so (util/background.ts): a bare void or a silent catch loses its failure.
    files: ['src/**/*.ts', 'web/src/**/*.{ts,tsx}'],
    rules: {
      'no-void': 'error',
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.property.name='catch'] > ArrowFunctionExpression[params.length=0][body.type='Identifier'][body.name='undefined']",
          message: 'Use inBackground() to log the failure, or settled() when the failure is reported elsewhere (src/util/background.ts).',
        },
      ],
      // An empty handler must say in a comment why nothing is to be done (a function holding a comment is not empty).
      '@typescript-eslint/no-empty-function': 'error',
    },
  },
  // Imports only downward, and into the hub only through its public module (scripts/layers.mjs).
  ...layerLintRules(),
);
