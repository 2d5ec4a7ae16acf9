/**
 * Validating request input with zod and turning failures into 400 VALIDATION_ERROR details
 * (API.md "Errors": `{ path, issue }`, never the value).
 *
 * zod's own messages do not quote input values for the checks used here; the messages below
 * replace the common ones with plainer text ("is required", "must be an integer") and the
 * schemas in lib/schemas/ give their own for format rules. Unknown fields are dropped by zod
 * (API.md "Shape": unknown request fields are ignored).
 */
import type { z } from 'zod';
import { validationError, type ErrorDetail } from './errors.ts';

/** At most this many details per response: enough to fix a request, bounded for hostile input. */
const MAX_DETAILS = 20;

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'a boolean',
  object: 'an object',
  array: 'an array',
};

type RawIssue = z.core.$ZodRawIssue;

/** A message for a zod issue, or undefined to keep zod's (value-free) default. */
function issueMessage(issue: RawIssue): string | undefined {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'is required';
      return `must be ${TYPE_NAMES[issue.expected] ?? issue.expected}`;
    case 'too_big':
    case 'too_small': {
      const bound = issue.code === 'too_big' ? 'at most' : 'at least';
      const limit = String(issue.code === 'too_big' ? issue.maximum : issue.minimum);
      if (issue.origin === 'string') return issue.code === 'too_small' && limit === '1' ? 'must not be empty' : `must be ${bound} ${limit} characters`;
      if (issue.origin === 'array') return `must have ${bound} ${limit} items`;
      return `must be ${bound} ${limit}`;
    }
    default:
      return undefined;
  }
}

/** Turn zod issues into response details. `root` names the whole input (e.g. `body`). */
export function issuesToDetails(issues: readonly z.core.$ZodIssue[], root: string): ErrorDetail[] {
  return issues.slice(0, MAX_DETAILS).map((issue) => ({
    path: issue.path.length === 0 ? root : issue.path.map(String).join('.'),
    issue: issue.message,
  }));
}

/**
 * Parse `input` with `schema`.
 * @throws {HttpError} 400 VALIDATION_ERROR listing the failing fields.
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, root: string): z.output<S> {
  const result = schema.safeParse(input, { error: issueMessage });
  if (result.success) return result.data;
  throw validationError(issuesToDetails(result.error.issues, root));
}

/**
 * The query string as an object of single values, for a query schema. A parameter the schema
 * knows that appears twice is an error (which one was meant?); unknown ones are ignored.
 * @throws {HttpError} 400 VALIDATION_ERROR for a repeated known parameter.
 */
export function queryObject(url: URL, known: readonly string[]): Record<string, string> {
  const query: Record<string, string> = Object.create(null) as Record<string, string>;
  const repeated: ErrorDetail[] = [];
  for (const name of known) {
    const values = url.searchParams.getAll(name);
    if (values.length > 1) repeated.push({ path: name, issue: 'must be given at most once' });
    else if (values.length === 1) query[name] = values[0]!;
  }
  if (repeated.length > 0) throw validationError(repeated);
  return query;
}
