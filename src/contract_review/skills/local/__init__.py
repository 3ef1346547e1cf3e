"""Generic (domain '*') skills, one module each: input model, output model, `prepare_input`,
`handle`, and `REGISTRATION`."""
