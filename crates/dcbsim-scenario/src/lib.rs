//! dcbsim scenario files.
