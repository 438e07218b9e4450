// The tests' Redis is the package's own throwaway server (also used by jepa-bench queue).
export * from '../src/testing/redis-server.js';
