//! Named topology builders (dumbbell, parking lot, many-to-one, incast).
