//! `App::update` and `App::apply_all`, with the exact commands sent.
