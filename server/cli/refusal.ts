/** A command that cannot do what it was asked for a reason its user can act on: the message goes to stderr, exit 1. */
export class Refusal extends Error {}
