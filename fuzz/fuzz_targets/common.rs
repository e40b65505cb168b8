// Checks shared by the scenario targets (included with `include!`).

/// A refusal must be one printable line of bounded length.
fn check_error(e: &dupack_sim::ScenarioError) {
    let text = e.to_string();
    assert!(!text.chars().any(char::is_control), "control character in {text:?}");
    assert!(text.chars().count() <= 3000, "message of {} characters", text.chars().count());
}
