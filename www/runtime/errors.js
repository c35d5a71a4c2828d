// The error classes a mongosh 2.x script meets: the Node driver's (MongoServerError,
// MongoBulkWriteError, WriteError, MongoInvalidArgumentError) and mongosh's own
// (MongoshInvalidInputError, ...). Shapes follow the driver: a server error copies every field of
// the reply (code, codeName, keyPattern, ...) onto the error and keeps the reply as errorResponse.

export const CommonErrors = Object.freeze({
  InvalidArgument: 'COMMON-10001',
  InvalidOperation: 'COMMON-10002',
  CommandFailed: 'COMMON-10003',
  NotImplemented: 'COMMON-90001',
});

// ---- the driver's ----------------------------------------------------------------------------

export class MongoError extends Error {
  get name() {
    return 'MongoError';
  }
  get errmsg() {
    return this.message;
  }
}

const LABELS = Symbol('errorLabels');

export class MongoServerError extends MongoError {
  constructor(response) {
    super(response.message || response.errmsg || response.$err || 'n/a');
    this.errorResponse = response;
    // The driver keeps the labels aside (errorLabels, hasErrorLabel), not as an own field.
    Object.defineProperty(this, LABELS, { value: new Set(Array.isArray(response.errorLabels) ? response.errorLabels : []), enumerable: false });
    for (const name in response) {
      if (name !== 'errorLabels' && name !== 'errmsg' && name !== 'message' && name !== 'errorResponse') {
        this[name] = response[name];
      }
    }
  }
  get name() {
    return 'MongoServerError';
  }
  get errorLabels() {
    return Array.from(this[LABELS]);
  }
  hasErrorLabel(label) {
    return this[LABELS].has(label);
  }
  addErrorLabel(label) {
    this[LABELS].add(label);
  }
}

/** The driver's error for a transaction used out of order (commit with none started, ...). */
export class MongoTransactionError extends MongoError {
  get name() {
    return 'MongoTransactionError';
  }
}

/** One failed statement of a bulk write (the driver's WriteError class). */
export class WriteError {
  constructor(err) {
    this.err = err;
  }
  get code() {
    return this.err.code;
  }
  get index() {
    return this.err.index;
  }
  get errmsg() {
    return this.err.errmsg;
  }
  get errInfo() {
    return this.err.errInfo;
  }
  getOperation() {
    return this.err.op;
  }
  toJSON() {
    return { code: this.err.code, index: this.err.index, errmsg: this.err.errmsg, op: this.err.op };
  }
  toString() {
    return `WriteError(${JSON.stringify(this.toJSON())})`;
  }
}

export class MongoBulkWriteError extends MongoServerError {
  constructor(error, result) {
    super(error);
    this.writeErrors = error.writeErrors ?? [];
    this.result = result;
    Object.assign(this, error);
  }
  get name() {
    return 'MongoBulkWriteError';
  }
  get insertedCount() {
    return this.result.insertedCount;
  }
  get matchedCount() {
    return this.result.matchedCount;
  }
  get modifiedCount() {
    return this.result.modifiedCount;
  }
  get deletedCount() {
    return this.result.deletedCount;
  }
  get upsertedCount() {
    return this.result.upsertedCount;
  }
  get insertedIds() {
    return this.result.insertedIds;
  }
  get upsertedIds() {
    return this.result.upsertedIds;
  }
}

export class MongoDriverError extends MongoError {
  get name() {
    return 'MongoDriverError';
  }
}
export class MongoAPIError extends MongoDriverError {
  get name() {
    return 'MongoAPIError';
  }
}
export class MongoInvalidArgumentError extends MongoAPIError {
  get name() {
    return 'MongoInvalidArgumentError';
  }
}
export class MongoCursorInUseError extends MongoAPIError {
  get name() {
    return 'MongoCursorInUseError';
  }
}

// ---- mongosh's -------------------------------------------------------------------------------

class MongoshBaseError extends Error {
  constructor(name, message, code) {
    super(code ? `[${code}] ${message}` : message);
    Object.defineProperty(this, 'name', { value: name, writable: true, configurable: true, enumerable: false });
    this.code = code;
  }
}

export class MongoshInvalidInputError extends MongoshBaseError {
  constructor(message, code) {
    super('MongoshInvalidInputError', message, code);
  }
}
export class MongoshRuntimeError extends MongoshBaseError {
  constructor(message, code) {
    super('MongoshRuntimeError', message, code);
  }
}
export class MongoshUnimplementedError extends MongoshBaseError {
  constructor(message, code) {
    super('MongoshUnimplementedError', message, code);
  }
}
export class MongoshInternalError extends MongoshBaseError {
  constructor(message) {
    super('MongoshInternalError', message);
  }
}

/** mongosh's check that required arguments are present (and of a type). */
export function assertArgsDefinedType(args, wantedTypes, fnName) {
  wantedTypes.forEach((wanted, i) => {
    const arg = args[i];
    if (wanted === true) {
      if (arg === undefined) {
        throw new MongoshInvalidInputError(`Missing required argument at position ${i}${fnName ? ` (${fnName})` : ''}`, CommonErrors.InvalidArgument);
      }
      return;
    }
    const types = Array.isArray(wanted) ? wanted : [wanted];
    const ok = types.some((t) => (t === undefined ? arg === undefined : t === 'object' ? typeof arg === 'object' && arg !== null : typeof arg === t));
    if (!ok) {
      const expected = types.map((t) => (t === undefined ? 'undefined' : t)).join(' or ');
      throw new MongoshInvalidInputError(
        `Argument at position ${i} must be of type ${expected}, got ${typeof arg} instead${fnName ? ` (${fnName})` : ''}`,
        CommonErrors.InvalidArgument,
      );
    }
  });
}
