// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/diffusion/decode_trace.h"

#include <QHash>
#include <QVector>
#include <QWidget>

#include <functional>

class QTimer;

namespace dice {

// The live denoising view: the answer laid out as text in cells. Masked cells are drawn as
// untouched stone; committed tokens are coloured by the step that committed them or by their
// confidence; the block being denoised is outlined. It shows the trace after any number of steps
// (the timeline scrubs it) and repaints at most every `frameInterval` ms however fast steps come.
class DenoisingCanvas : public QWidget {
    Q_OBJECT
public:
    enum class ColorMode { ByStep, ByConfidence };

    explicit DenoisingCanvas(QWidget* parent = nullptr);

    // The token texts come from the tokenizer; the canvas caches them.
    void setTokenText(std::function<QString(qint64)> textOf);
    // Shows `trace` (not owned; it must outlive its use here or be replaced).
    void setTrace(const DecodeTrace* trace);
    // Call after the trace grew; with follow on, the view moves to the newest step.
    void traceChanged();
    void setStep(int steps);
    int step() const { return m_step; }
    void setFollow(bool follow) { m_follow = follow; }
    bool follow() const { return m_follow; }
    void setColorMode(ColorMode mode);
    ColorMode colorMode() const { return m_mode; }

    // What is drawn now, cell by cell (tests compare it with the sampler's events).
    const std::vector<CellState>& cells() const { return m_cells; }
    // Frames painted so far (the frame-rate figure).
    qint64 framesPainted() const { return m_frames; }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

    // The colour of a committed cell at t in [0, 1]: the share of the steps before it, or its
    // confidence.
    static QColor keyColor(ColorMode mode, double t);

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    bool event(QEvent* event) override;

private:
    struct Cell {
        QRectF rect;
        QString text;
    };
    void rebuild();
    void layoutCells();
    void scheduleRepaint();
    QString displayText(qint64 token);
    QColor colorFor(const CellState& cell) const;

    const DecodeTrace* m_trace = nullptr;
    std::function<QString(qint64)> m_textOf;
    QHash<qint64, QString> m_textCache;
    std::vector<CellState> m_cells;
    QVector<Cell> m_layout;
    std::pair<qint64, int> m_activeBlock{0, 0};
    int m_step = 0;
    int m_maxStep = 1;
    bool m_follow = true;
    ColorMode m_mode = ColorMode::ByStep;
    QTimer* m_frameTimer;
    bool m_dirty = false;
    qint64 m_frames = 0;
    qreal m_charWidth = 8;
    qreal m_lineHeight = 16;
    int m_contentHeight = 0;
};

// The key to the canvas's colours: a masked cell, and the ramp from the first step to the last
// (or from a guess to certainty).
class ColorKey : public QWidget {
    Q_OBJECT
public:
    explicit ColorKey(QWidget* parent = nullptr);
    void setMode(DenoisingCanvas::ColorMode mode);
    void setSteps(int steps);
    QString lowText() const;
    QString highText() const;
    QSize sizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    DenoisingCanvas::ColorMode m_mode = DenoisingCanvas::ColorMode::ByStep;
    int m_steps = 1;
};

} // namespace dice
