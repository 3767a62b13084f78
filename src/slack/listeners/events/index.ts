import type { Handlers } from '../routes.js';
import { homeOpened } from './home-opened.js';

/** Each event type and its listener. */
export function eventRoutes(): Handlers {
  return new Map([['app_home_opened', homeOpened]]);
}
