package dev.adaptive.retry;

/** {@link RetryClassifier#all()}: an enum so it has one instance and a readable name. */
enum AllClassifier implements RetryClassifier {
    INSTANCE;

    @Override
    public boolean shouldRetry(Throwable error, int attempt) {
        return true;
    }

    @Override
    public String toString() {
        return "all";
    }
}
