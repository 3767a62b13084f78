/**
 * Preloaded into an app process by tests (node --import) to stand for a bug the code has not met
 * yet: on SIGUSR2 it leaves a rejected promise unhandled, or throws from a timer, as FAULT says.
 */

process.on('SIGUSR2', () => {
  if (process.env.FAULT === 'throw') {
    setTimeout(() => {
      throw new Error('injected: a bug thrown from a callback');
    }, 0);
  } else {
    void Promise.reject(new Error('injected: a rejection nobody handled'));
  }
});
