import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // A test reaches this machine only: anything else fails it, naming the address.
    setupFiles: ['test/helpers/network-guard.ts'],
    // Two cores: end-to-end files start real servers, so keep the pool small and the timeouts honest.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
