// Only the promise rules: the async store makes an un-awaited write a silent bug that type checks miss.
import tseslint from 'typescript-eslint';

export default tseslint.config({
  linterOptions: { reportUnusedDisableDirectives: 'off' },
  files: ['src/**/*.ts', 'test/**/*.ts'],
  languageOptions: {
    parser: tseslint.parser,
    parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
  },
  plugins: { '@typescript-eslint': tseslint.plugin },
  rules: {
    '@typescript-eslint/no-floating-promises': 'error',
    '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
    '@typescript-eslint/await-thenable': 'error',
  },
});
