/**
 * The process's configuration, read from the environment once (lib/config.ts validates it).
 * instrumentation.ts calls {@link getConfig} at boot so a bad value stops the server before it
 * serves anything; later calls return the same object.
 */
import { loadConfig, type Config } from '../config.ts';
import { processSingleton } from './singleton.ts';

/** The validated configuration. @throws {ConfigError} when the environment is invalid. */
export function getConfig(): Config {
  return processSingleton('config', () => loadConfig(process.env));
}
