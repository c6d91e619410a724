use logparsers_sample::add;

#[test]
fn integration_passes() {
    assert_eq!(add(20, 22), 42);
}

#[test]
fn integration_fails() {
    assert!(add(1, 1) == 3, "one plus one is not three");
}
