import js from '@eslint/js'
import tseslint from 'typescript-eslint'
import { layers } from './eslint/layers.js'

export default tseslint.config(
  {
    ignores: [
      'node_modules',
      'dist',
      'dist-demo',
      'test-results',
      'playwright-report',
      'src/models/__fixtures__',
      'e2e/consumer/dist',
      // The consumer app imports the installed tarball; its own type checks (bundler and nodenext) cover it.
      'e2e/consumer/src',
      'e2e/consumer/.generated',
      // Likewise the cold-start apps: they import what bench/cold-start installs; its runner type-checks them.
      'bench/cold-start/apps',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true }],
    },
  },
  {
    files: ['src/**/*.{ts,tsx}', 'devtools/**/*.{ts,tsx}'],
    plugins: { layers },
    rules: { 'layers/imports': 'error' },
  },
  { files: ['**/*.mjs', '**/*.js'], ...tseslint.configs.disableTypeChecked },
  {
    files: ['**/*.mjs', '**/*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', setTimeout: 'readonly' } },
  },
)
