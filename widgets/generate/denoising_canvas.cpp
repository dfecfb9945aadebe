// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/generate/denoising_canvas.h"

#include <QEvent>
#include <QFontDatabase>
#include <QFontMetrics>
#include <QFontMetricsF>
#include <QHelpEvent>
#include <QPainter>
#include <QTimer>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace dice {

namespace {

constexpr qreal kPadding = 6;
constexpr int kMaskedCellChars = 2;

// A perceptually ordered ramp (dark blue through green to yellow) for step order.
QColor rampColor(double t) {
    static const QColor stops[] = {QColor(0x44, 0x01, 0x54), QColor(0x3b, 0x52, 0x8b),
                                   QColor(0x21, 0x90, 0x8d), QColor(0x5d, 0xc8, 0x63),
                                   QColor(0xfd, 0xe7, 0x25)};
    t = std::clamp(t, 0.0, 1.0) * 4.0;
    const int i = std::min(3, static_cast<int>(t));
    const double f = t - i;
    const QColor& a = stops[i];
    const QColor& b = stops[i + 1];
    return QColor::fromRgbF(static_cast<float>(a.redF() + (b.redF() - a.redF()) * f),
                            static_cast<float>(a.greenF() + (b.greenF() - a.greenF()) * f),
                            static_cast<float>(a.blueF() + (b.blueF() - a.blueF()) * f));
}

} // namespace

DenoisingCanvas::DenoisingCanvas(QWidget* parent)
    : QWidget(parent)
    , m_frameTimer(new QTimer(this)) {
    setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    setAttribute(Qt::WA_OpaquePaintEvent);
    setMouseTracking(true);
    m_frameTimer->setInterval(33);
    m_frameTimer->setSingleShot(true);
    connect(m_frameTimer, &QTimer::timeout, this, [this] {
        if (m_dirty)
            update();
    });
    const QFontMetricsF metrics(font());
    m_charWidth = metrics.horizontalAdvance(QLatin1Char('M'));
    m_lineHeight = metrics.height() + 4;
}

void DenoisingCanvas::setTokenText(std::function<QString(qint64)> textOf) {
    m_textOf = std::move(textOf);
    m_textCache.clear();
    rebuild();
}

void DenoisingCanvas::setTrace(const DecodeTrace* trace) {
    m_trace = trace;
    m_step = trace ? trace->stepCount() : 0;
    rebuild();
}

void DenoisingCanvas::traceChanged() {
    if (!m_trace)
        return;
    if (m_follow)
        m_step = m_trace->stepCount();
    rebuild();
}

void DenoisingCanvas::setStep(int steps) {
    const int limit = m_trace ? m_trace->stepCount() : 0;
    steps = std::clamp(steps, 0, limit);
    if (steps == m_step && !m_cells.empty())
        return;
    m_step = steps;
    rebuild();
}

void DenoisingCanvas::setColorMode(ColorMode mode) {
    m_mode = mode;
    scheduleRepaint();
}

QString DenoisingCanvas::displayText(qint64 token) {
    auto found = m_textCache.constFind(token);
    if (found != m_textCache.constEnd())
        return *found;
    const QString text = m_textOf ? m_textOf(token) : QStringLiteral("#%1").arg(token);
    m_textCache.insert(token, text);
    return text;
}

void DenoisingCanvas::rebuild() {
    if (m_trace) {
        m_cells = m_trace->cellsAfter(m_step);
        m_activeBlock = m_trace->activeBlockAfter(m_step);
        m_maxStep = std::max(1, m_trace->stepCount());
    } else {
        m_cells.clear();
        m_activeBlock = {0, 0};
        m_maxStep = 1;
    }
    layoutCells();
    scheduleRepaint();
}

void DenoisingCanvas::layoutCells() {
    m_layout.resize(static_cast<int>(m_cells.size()));
    const qreal right = std::max<qreal>(width() - kPadding, kPadding + 20 * m_charWidth);
    qreal x = kPadding;
    qreal y = kPadding;
    for (std::size_t i = 0; i < m_cells.size(); ++i) {
        const CellState& c = m_cells[i];
        Cell& cell = m_layout[static_cast<int>(i)];
        QString text = c.committed ? displayText(c.token) : QString();
        // A token's line breaks end the line after it; tabs take four columns.
        const int breaks = static_cast<int>(text.count(QLatin1Char('\n')));
        text.remove(QLatin1Char('\n')).replace(QLatin1Char('\t'), QStringLiteral("    "));
        const int chars =
            c.committed ? std::max<int>(1, static_cast<int>(text.size())) : kMaskedCellChars;
        const qreal w = chars * m_charWidth;
        if (x + w > right && x > kPadding) {
            x = kPadding;
            y += m_lineHeight;
        }
        cell.rect = QRectF(x, y, w, m_lineHeight - 2);
        cell.text = text;
        x += w;
        if (breaks > 0) {
            x = kPadding;
            y += m_lineHeight * breaks;
        }
    }
    const int height = static_cast<int>(y + m_lineHeight + kPadding);
    if (height != m_contentHeight) {
        m_contentHeight = height;
        // Inside a scroll area the canvas grows with its content.
        setMinimumHeight(height);
    }
}

void DenoisingCanvas::scheduleRepaint() {
    m_dirty = true;
    if (!m_frameTimer->isActive())
        m_frameTimer->start();
}

QColor DenoisingCanvas::keyColor(ColorMode mode, double t) {
    if (mode == ColorMode::ByConfidence) {
        // Red for guesses, green for certainty.
        t = std::clamp(t, 0.0, 1.0);
        return QColor::fromHsvF(static_cast<float>(t * 0.33), 0.55f, 0.95f);
    }
    return rampColor(t);
}

QColor DenoisingCanvas::colorFor(const CellState& cell) const {
    if (m_mode == ColorMode::ByConfidence)
        return keyColor(m_mode, static_cast<double>(cell.confidence));
    return keyColor(m_mode, static_cast<double>(cell.globalStep - 1) / std::max(1, m_maxStep - 1));
}

ColorKey::ColorKey(QWidget* parent)
    : QWidget(parent) {
    setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
}

void ColorKey::setMode(DenoisingCanvas::ColorMode mode) {
    m_mode = mode;
    updateGeometry();
    update();
}

void ColorKey::setSteps(int steps) {
    m_steps = steps;
    updateGeometry();
    update();
}

QString ColorKey::lowText() const {
    return m_mode == DenoisingCanvas::ColorMode::ByConfidence ? tr("unsure") : tr("step 1");
}

QString ColorKey::highText() const {
    return m_mode == DenoisingCanvas::ColorMode::ByConfidence
               ? tr("certain")
               : tr("step %1").arg(std::max(1, m_steps));
}

QSize ColorKey::sizeHint() const {
    const QFontMetrics metrics(font());
    const int text = metrics.horizontalAdvance(lowText()) + metrics.horizontalAdvance(highText()) +
                     metrics.horizontalAdvance(tr("masked"));
    return {text + 96 + 5 * 6, metrics.height() + 4};
}

void ColorKey::changeEvent(QEvent* event) {
    if (event->type() == QEvent::LanguageChange || event->type() == QEvent::FontChange) {
        updateGeometry();
        update();
    }
    QWidget::changeEvent(event);
}

void ColorKey::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    const QFontMetrics metrics(font());
    const int h = height() - 4;
    int x = 0;
    // A masked cell as the canvas draws it, then the ramp from low to high.
    painter.fillRect(QRect(x, 2, h, h), QColor(0xc8, 0xcb, 0xd0));
    painter.fillRect(QRect(x, 2, h, h), QBrush(QColor(0x9a, 0x9d, 0xa3), Qt::Dense4Pattern));
    x += h + 4;
    painter.setPen(palette().color(QPalette::WindowText));
    painter.drawText(QRect(x, 0, width(), height()), Qt::AlignVCenter, tr("masked"));
    x += metrics.horizontalAdvance(tr("masked")) + 10;
    painter.drawText(QRect(x, 0, width(), height()), Qt::AlignVCenter, lowText());
    x += metrics.horizontalAdvance(lowText()) + 4;
    const int ramp = 80;
    for (int i = 0; i < ramp; ++i)
        painter.fillRect(QRect(x + i, 2, 1, h),
                         DenoisingCanvas::keyColor(m_mode, static_cast<double>(i) / (ramp - 1)));
    x += ramp + 4;
    painter.drawText(QRect(x, 0, width(), height()), Qt::AlignVCenter, highText());
}

void DenoisingCanvas::paintEvent(QPaintEvent*) {
    m_dirty = false;
    ++m_frames;
    QPainter painter(this);
    painter.fillRect(rect(), palette().base());
    const QBrush stone(QColor(0x9a, 0x9d, 0xa3), Qt::Dense4Pattern);
    const QColor stoneBack(0xc8, 0xcb, 0xd0);
    for (int i = 0; i < m_layout.size(); ++i) {
        const Cell& cell = m_layout[i];
        const CellState& state = m_cells[static_cast<std::size_t>(i)];
        if (!state.committed) {
            painter.fillRect(cell.rect.adjusted(1, 1, -1, -1), stoneBack);
            painter.fillRect(cell.rect.adjusted(1, 1, -1, -1), stone);
            continue;
        }
        const QColor back = colorFor(state);
        painter.fillRect(cell.rect, back);
        painter.setPen(back.lightnessF() < 0.5 ? Qt::white : Qt::black);
        painter.drawText(cell.rect, Qt::AlignLeft | Qt::AlignVCenter, cell.text);
    }
    // Outline the block being denoised.
    if (m_activeBlock.second > 0 && (!m_trace || !m_trace->finished() || m_step < m_maxStep)) {
        painter.setPen(QPen(QColor(0xe0, 0x40, 0x20), 2));
        painter.setBrush(Qt::NoBrush);
        for (qint64 p = std::max<qint64>(0, m_activeBlock.first);
             p < m_activeBlock.first + m_activeBlock.second && p < m_layout.size(); ++p)
            painter.drawRect(m_layout[static_cast<int>(p)].rect.adjusted(0.5, 0.5, -0.5, -0.5));
    }
}

void DenoisingCanvas::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    layoutCells();
    scheduleRepaint();
}

bool DenoisingCanvas::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        const auto* help = static_cast<QHelpEvent*>(event);
        for (int i = 0; i < m_layout.size(); ++i) {
            if (!m_layout[i].rect.contains(help->pos()))
                continue;
            const CellState& c = m_cells[static_cast<std::size_t>(i)];
            const QString text =
                c.committed
                    ? tr("Position %1: token %2 %3\ncommitted at step %4 (block %5), confidence %6")
                          .arg(i)
                          .arg(c.token)
                          .arg(QStringLiteral("«%1»").arg(displayText(c.token)))
                          .arg(c.globalStep)
                          .arg(c.block)
                          .arg(static_cast<double>(c.confidence), 0, 'f', 3)
                    : tr("Position %1: still masked").arg(i);
            QToolTip::showText(help->globalPos(), text, this);
            return true;
        }
        QToolTip::hideText();
        return true;
    }
    return QWidget::event(event);
}

QSize DenoisingCanvas::sizeHint() const {
    return QSize(static_cast<int>(80 * m_charWidth), std::max(m_contentHeight, 200));
}

QSize DenoisingCanvas::minimumSizeHint() const {
    return QSize(static_cast<int>(20 * m_charWidth), 80);
}

} // namespace dice
