import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Tests start real servers on 127.0.0.1; forks keep each file's sockets and timers apart.
    pool: 'forks',
    restoreMocks: true,
  },
});
